#!/usr/bin/env bash
# Phase 1 of the mma.sync fused kernel on the tensor cores (v4.7) against the committed build, on the
# GPU machine from the repository root, with .device/base.tar.xz, .device/build-cuda.tar.xz and
# .device/build-cuda.path carried: the GPU tests of the new build; the A/B (two runs, the builds
# alternating) of the forced fused rows and AUTO at the layers that run the mma.sync kernel in NHWC, and
# the NCHW-f control, whose kernel only gained the padded V layout; with NCU=1 (the default) Nsight
# Compute of the F(4,3) NHWC fused kernel at VGG-16 64@224 in both builds. Everything under $OUT is
# packed into $OUT/part1.tar.gz (the device tool returns 8 files). Environment: LAYERS, TRANSFORMS, NCU.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/part1"
tools/device/run_gpu_tests.sh --log "$out/part1/gpu_tests.txt"
LAYERS=${LAYERS:-"64,224,32 64,56,32 128,112,32 128,28,32 64,224,8 64,224,1"} TRANSFORMS=${TRANSFORMS:-f4x3_standard} \
  LAYOUTS="NHWC-f NHWC NCHW-f" OUT=$out/part1 tools/device/ab_stages.sh >/dev/null
[ "${NCU:-1}" = 1 ] && tools/device/ncu_ab.sh 64,224,32 f4x3_standard fused_mma_nhwc_f16_v0 fused_mma_nhwc_f16_v0 \
  "$out/part1/ncu_64x224"
tools/device/ab_table.py "$out/part1/ab.txt"
tar czf "$out/part1.tar.gz" -C "$out" part1 && rm -rf "${out:?}/part1"
