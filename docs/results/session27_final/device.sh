#!/usr/bin/env bash
# The twenty-seventh session's build (AUTO refitted on data of today's kernels:
# ../cost_model/current_kernels/) on the GPU machine, from the repository root, with
# .device/build-cuda.tar.xz and .device/build-cuda.path carried. In this order, each part where asked:
# AUTO against every configuration on 300 fresh random shapes for each seed in SEEDS (held out: no
# fit saw them; tools/device/auto_random.sh: auto_random/randS_new.log, .csv.gz), the whole GPU suite
# where TESTS=1 (gpu_tests.txt), and the full fp16 speed table with AUTO's geometric means against
# cuDNN for each run name in RUNS (../session23_final/device.sh's procedure: RUN/speed.csv,
# stages.csv, bench_conv.log). Everything under $OUT is packed into $OUT/r.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r/auto_random"
if [ -n "${SEEDS:-}" ]; then
  OUT=$out/r/auto_random tools/device/auto_random.sh
  gzip "$out"/r/auto_random/*.csv
fi
[ "${TESTS:-0}" = 1 ] && tools/device/run_gpu_tests.sh --log "$out/r/gpu_tests.txt" | tail -3
for run in ${RUNS:-}; do
  RUNS=1 OUT=$out/table docs/results/session23_final/device.sh
  mv "$out/table/run1" "$out/r/$run" && rm -rf "${out:?}/table"
done
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
