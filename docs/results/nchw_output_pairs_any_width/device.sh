#!/usr/bin/env bash
# The device call of the seventeenth session's NCHW output tile pairs at any width: the committed
# build against the staged one (tools/device/ab_stages.sh: forced NCHW 3-pass and AUTO rows, F(4,3)
# and F(2,3), RUNS alternating runs, default 1) at the NCHW layers whose output width is not a
# multiple of 2m and at VGG-16 128@112, whose width took the pairs before (LAYERS); Nsight Compute of
# the F(4,3) NCHW fp16 output kernel at VGG-16 512@28 batch 32 in both builds (NCU=0: none); then the
# GPU tests of the staged build (SKIP_TESTS=1: none) and its --quick fp16 table (QUICK=0: none).
# Writes $OUT/ab.txt, ncu_{base,new}.txt, gpu_tests.txt, quick_fp16.log and quick_fp16_speed.csv. Run
# from the repository root with .device/build-cuda.tar.xz, .device/build-cuda.path and
# .device/base.tar.xz carried.
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/o}
mkdir -p "$out"
LAYERS=${LAYERS:-512,28,32 128,28,32 256,14,32 512,14,32 512,7,32 128,112,32} TRANSFORMS="f4x3_standard f2x3_standard" \
  LAYOUTS="NCHW-3 NCHW" RUNS="${RUNS:-1}" OUT=$out bash tools/device/ab_stages.sh >/dev/null
. tools/device/stage.sh
use_stage build-cuda
# (The run had this step inline, the same commands as tools/device/ncu_ab.sh, which it calls now.)
[ "${NCU:-1}" = 1 ] && tools/device/ncu_ab.sh 512,28,32 f4x3_standard output_m16_nchw_f16 output_tile_pairs_nchw_f16 \
  "$out/ncu"
[ "${SKIP_TESTS:-0}" = 1 ] || tools/device/run_gpu_tests.sh --log "$out/gpu_tests.txt"
if [ "${QUICK:-1}" = 1 ]; then
  mkdir -p /tmp/quick_fp16
  LD_LIBRARY_PATH=$stage/runtime:$stage/jit $stage/tools/device/nova-bench-conv /tmp/quick_fp16 --quick --dtype fp16 \
    >"$out/quick_fp16.log" 2>&1
  cp /tmp/quick_fp16/speed.csv "$out/quick_fp16_speed.csv"
fi
sort "$out/ab.txt"
