#!/usr/bin/env bash
# Before the NHWC steps of the twenty-fifth session, on the GPU machine, from the repository root, with
# .device/base.tar.xz (fused v5.12), .device/build-cuda.tar.xz (v5.13, the twenty-fourth session's final
# GPU code) and .device/build-cuda.path carried:
#   - the whole GPU suite (ctest -L gpu and nova_torch's pytest tests) on the v5.13 build, which the
#     twenty-fourth session ran only in part (../header_alignment/gpu_tests_full.txt);
#   - Nsight Compute's full set and source page of the wgmma kernel forced on NHWC at VGG-16 64@224
#     batch 32 (f4x3_standard), both builds, summed by role (ncu_nhwc_64x224_*).
# Everything under $OUT is packed into $OUT/r.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
tools/device/run_gpu_tests.sh --log "$out/r/gpu_tests_full.txt" | tail -3
NOVA_FUSED_KERNEL=wgmma SOURCE=1 tools/device/ncu_ab.sh 64,224,32 f4x3_standard fused_wgmma_nhwc_f16_v0 \
  fused_wgmma_nhwc_f16_v0 "$out/r/ncu_nhwc_64x224"
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
