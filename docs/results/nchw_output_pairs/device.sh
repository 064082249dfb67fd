#!/usr/bin/env bash
# One device call of the sixteenth session (the NCHW output transform in tile pairs): the GPU tests of
# the staged build (SKIP_TESTS=1: none), tools/device/ab_stages.sh (AB=0: none; the committed build
# against the staged one, alternating) on the forced NCHW 3-pass and AUTO rows of TRANSFORMS (default
# "f4x3_standard f2x3_standard") and DTYPES (default fp16) at LAYERS (ab_stages.sh's default),
# Nsight Compute of the NCHW fp16 output kernel of f4x3_standard at NCU_LAYER (default 128,112,32;
# none where NCU_LAYER is empty) in both builds (base: output_m16, new: output_tile_pairs), then
# the bench's --quick table of the staged build in each dtype of QUICK_DTYPES (default fp16; empty:
# none) and AUTO on 300 fresh random shapes for each seed in SEEDS (none by default) with the builds
# in AUTO_BUILDS (default new: the staged one; base: the committed one).
# Run on the device from the repository root with .device/build-cuda.tar.xz, .device/build-cuda.path
# and .device/base.tar.xz carried.
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/o}
mkdir -p $out
[ -n "${SKIP_TESTS:-}" ] || tools/device/run_gpu_tests.sh --log $out/gpu_tests.txt
[ "${AB:-1}" = 1 ] && TRANSFORMS=${TRANSFORMS:-f4x3_standard f2x3_standard} DTYPES=${DTYPES:-fp16} \
  LAYOUTS="NCHW-3 NCHW" RUNS="${RUNS:-1 2}" bash tools/device/ab_stages.sh >/dev/null
. tools/device/stage.sh
use_stage build-cuda
layer=${NCU_LAYER-128,112,32}
# (tools/device/ncu_ab.sh since the seventeenth session, with the staged bench for both builds; this
# run had the same loop inline with each build's own bench, which is the same for --layer.)
[ -n "$layer" ] && tools/device/ncu_ab.sh "$layer" f4x3_standard output_m16_nchw_f16 output_tile_pairs_nchw_f16 \
  "$out/ncu_output_nchw_${layer//,/_}"
for dtype in ${QUICK_DTYPES-fp16}; do
  mkdir -p /tmp/quick_$dtype
  LD_LIBRARY_PATH=$stage/runtime:$stage/jit $stage/tools/device/nova-bench-conv /tmp/quick_$dtype --quick --dtype $dtype \
    >$out/quick_$dtype.log 2>&1
  cp /tmp/quick_$dtype/speed.csv $out/quick_${dtype}_speed.csv
done
SEEDS="${SEEDS:-}" OUT=$out bash tools/device/auto_random.sh
[ -f $out/ab.txt ] && sort $out/ab.txt
