#!/usr/bin/env bash
# The device call of the eighteenth session's NCHW wgmma producers in tile pairs, and (with LAYERS and
# LAYOUTS set) of its next step, NCHW patch runs without checks: the committed build (.device/base)
# against the staged one (tools/device/ab_stages.sh: by default the forced fused rows of both layouts and
# AUTO's NCHW row, f4x3_standard, runs 1 and 2 alternating) at the layers the wgmma kernel runs in NCHW;
# Nsight Compute of the NCHW fp16 wgmma kernel at VGG-16 64@224 batch 32 in both builds (NCU=0: none);
# the GPU tests of the staged build (SKIP_TESTS=1: none) and its --quick fp16 table (QUICK=0: none).
# Writes $OUT/ab.txt, ncu_{base,new}.txt, gpu_tests.txt and quick/ (bench_conv.sh's files).
# Run from the repository root with .device/build-cuda.tar.xz, .device/build-cuda.path and
# .device/base.tar.xz carried.
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/o}
mkdir -p "$out"
LAYERS=${LAYERS:-64,224,32 64,56,32 64,224,8 64,56,8} TRANSFORMS=f4x3_standard LAYOUTS=${LAYOUTS:-NCHW-f NCHW NHWC-f} \
  RUNS="${RUNS:-1 2}" OUT=$out bash tools/device/ab_stages.sh >/dev/null
. tools/device/stage.sh
use_stage build-cuda
[ "${NCU:-1}" = 1 ] && tools/device/ncu_ab.sh 64,224,32 f4x3_standard fused_wgmma_nchw_f16_v0 fused_wgmma_nchw_f16_v0 \
  "$out/ncu"
[ "${SKIP_TESTS:-0}" = 1 ] || tools/device/run_gpu_tests.sh --log "$out/gpu_tests.txt"
[ "${QUICK:-1}" = 1 ] && OUT=$out/quick tools/device/bench_conv.sh --quick --dtype fp16 >/dev/null 2>&1
sort "$out/ab.txt"
