#!/usr/bin/env bash
# On the GPU machine, with .device/build-cuda (tools/device/build_gpu.sh of this tree) carried: the GPU suite,
# Nsight Compute's full set of the bf16 NHWC wgmma kernel (the tensor-core input path) at VGG-16 64@224 b32 (the
# details page, and the source page that docs/results/tc_input/regions.py splits by role), and the quick bf16
# table against cuDNN in bf16 (tools/device/bench_conv.sh --quick --dtype bf16); TESTS=0 or TABLE=0 leave those
# out. Packs $OUT/r.tar.gz.
set -u
o=$OUT/r
mkdir -p "$o"
[ "${TESTS:-1}" = 1 ] && tools/device/run_gpu_tests.sh --log "$o/gpu_tests.txt" 2>&1 | tail -4
. tools/device/stage.sh
use_stage build-cuda
mkdir -p /tmp/ncu  # the bench's output folder
NOVA_FUSED_KERNEL=wgmma LD_LIBRARY_PATH=$stage/runtime:$stage/jit ncu --clock-control none --set full -f -o /tmp/ncu_bf16 \
  --kernel-name 'regex:f4x3_standard_fused_wgmma_nhwc_bf16_v0$' --launch-count 1 "$stage/tools/device/nova-bench-conv" /tmp/ncu \
  --layer 64,224,32 --transform f4x3_standard --dtype bf16 >/dev/null 2>&1
ncu --import /tmp/ncu_bf16.ncu-rep --page details >"$o/ncu_bf16_64x224_b32.txt" 2>&1
ncu --import /tmp/ncu_bf16.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip >"$o/ncu_bf16_64x224_b32_source.csv.gz"
grep -E "Duration|Issue Slots Busy|Registers Per Thread" "$o/ncu_bf16_64x224_b32.txt"
[ "${TABLE:-1}" = 1 ] && OUT=$o/bf16_quick tools/device/bench_conv.sh --quick --dtype bf16 | tail -30
tar czf "$OUT/r.tar.gz" -C "$OUT" r
