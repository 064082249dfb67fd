#!/usr/bin/env bash
# The twenty-third session's builds on the GPU machine, from the repository root, with
# .device/build-cuda.tar.xz and .device/build-cuda.path carried: the full fp16 speed table (batches 1, 8
# and 32, both layouts; tools/device/bench_conv.sh), RUNS times (default 2), each followed by AUTO's
# geometric means against cuDNN. Run on the v5.9 build (../nchw_float_patch/auto_run*) and on the final
# v5.10 build (run1/, run2/; its GPU tests: ../nchw_store_rows/gpu_tests.txt).
set -uo pipefail
out=${OUT:-/tmp/o}
for run in $(seq 1 "${RUNS:-2}"); do
  OUT=$out/full tools/device/bench_conv.sh >/dev/null
  mkdir -p "$out/run$run"
  cp "$out/full/speed.csv" "$out/full/stages.csv" "$out/full/bench_conv.log" "$out/run$run/" && rm -rf "${out:?}/full"
  echo "== run $run"
  docs/results/nchw_output_pairs/geomeans.py "$out/run$run/speed.csv"
done
