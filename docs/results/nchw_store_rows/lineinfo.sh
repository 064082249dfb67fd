#!/usr/bin/env bash
# Where the v5.9 producers' instructions went, line by line (docs/performance.md, "Fused v5.10"):
# v5.9_nchw_kernel_lineinfo.sass.gz is `nvdisasm -g` of the NCHW fp16 wgmma kernel of f4x3_standard
# (16 tiles) as commit 0addf37's headers compile it with -lineinfo, the same instructions as the
# kernel profiled in ../nchw_float_patch/v2_words/. (The committed file came from a probe that also held
# the NHWC kernel, disassembled whole with the NCHW kernel's section kept; this script, which builds the
# NCHW kernel alone, has not been run on the GPU host to the end: its first run named the function with
# nvdisasm's -fun, which takes an index, and the session's device time was spent.)
#   here:            docs/results/nchw_store_rows/lineinfo.sh build    (nvcc; writes .device/probe/)
#   on the GPU host: docs/results/nchw_store_rows/lineinfo.sh disasm   (carry .device/probe; $OUT)
#   then:            tools/device/sass_summary.py --roles ../nchw_float_patch/v2_words/ncu_64x224_source_new.csv.gz \
#                      --lines v5.9_nchw_kernel_lineinfo.sass.gz
# The store loop's lines are fused_wgmma_kernels.hpp 180-186 and fused_kernels.hpp 669-677 of 0addf37.
set -euo pipefail
cd "$(dirname "$0")/../../.."
case ${1:-} in
  build)
    src=$(mktemp -d)
    git archive 0addf37 runtime/kernels generated | tar x -C "$src"
    cat >"$src/probe.cu" <<'CU'
#include "nova/kernels/transform_registry_gpu.hpp"
#include "f4x3_standard_transforms.hpp"
extern "C" __global__ void __launch_bounds__(nova::kernels::kWgThreads, 1) probe_nchw(nova::kernels::FusedConvArgs args) {
  nova::kernels::fused_wg_conv_body<nova::generated::f4x3_standard::Transform, __half, nova::kernels::Layout::nchw, 16>(args);
}
CU
    mkdir -p .device/probe
    nvcc -std=c++20 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -x cu -DNOVA_FUSED_WGMMA \
      -I"$src/runtime/kernels/include" -I"$src/generated" -cubin -o .device/probe/probe.cubin "$src/probe.cu"
    rm -rf "$src" ;;
  disasm)
    nvdisasm -g .device/probe/probe.cubin | gzip >"${OUT:-/tmp/o}/v5.9_nchw_kernel_lineinfo.sass.gz" ;;
  *) echo "usage: lineinfo.sh build|disasm" >&2; exit 2 ;;
esac
