#!/usr/bin/env bash
# On the GPU machine, with .device/build-cuda (tools/device/build_gpu.sh of this tree) and .device/base (the
# build before, with f4x3_standard's kernels) carried: the GPU suite, Nsight Compute's full set of the NHWC
# wgmma kernel at VGG-16 64@224 b32 in both builds (tools/device/ncu_ab.sh, SOURCE=1: the details page and the
# source page, whose SASS column docs/results/tc_input/regions.py splits by role). Packs $OUT/r.tar.gz.
set -u
o=$OUT/r
mkdir -p "$o"
tools/device/run_gpu_tests.sh --log "$o/gpu_tests.txt" 2>&1 | tail -4
NOVA_FUSED_KERNEL=wgmma SOURCE=1 tools/device/ncu_ab.sh 64,224,32 f4x3_standard fused_wgmma_nhwc_f16_v0 fused_wgmma_nhwc_f16_v0 \
  "$o/ncu_64x224_b32" 2>&1 | tail -8
tar czf "$OUT/r.tar.gz" -C "$OUT" r
