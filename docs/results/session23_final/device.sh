#!/usr/bin/env bash
# The twenty-third session's final build (v5.9, NCHW patch runs held as storage pairs) on the GPU
# machine, from the repository root, with .device/build-cuda.tar.xz and .device/build-cuda.path
# carried: the full fp16 speed table (batches 1, 8 and 32, both layouts; tools/device/bench_conv.sh),
# RUNS times (default 2), each followed by AUTO's geometric means against cuDNN. Its GPU tests ran in
# ../nchw_float_patch/v2_words/gpu_tests.txt.
set -uo pipefail
out=${OUT:-/tmp/o}
for run in $(seq 1 "${RUNS:-2}"); do
  OUT=$out/full tools/device/bench_conv.sh >/dev/null
  mkdir -p "$out/run$run"
  cp "$out/full/speed.csv" "$out/full/stages.csv" "$out/full/bench_conv.log" "$out/run$run/" && rm -rf "${out:?}/full"
  echo "== run $run"
  docs/results/nchw_output_pairs/geomeans.py "$out/run$run/speed.csv"
done
