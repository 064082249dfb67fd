#!/usr/bin/env bash
# As device.sh's frontier, in bf16 (nova-bench-conv --dtype bf16 --frontier), on the two layers the tensor-core input
# path takes at batch 32: all rows in $OUT/tc_set/frontier_bf16.csv, then the F(4,3) sets' table.
# Usage: OUT=dir docs/results/tc_set/device_bf16.sh
set -uo pipefail
mkdir -p "$OUT/tc_set"
. tools/device/stage.sh
use_stage build-cuda
for layer in 64,224,32 64,56,32; do
  dir=$(mktemp -d)
  stage_bench "$dir" --dtype bf16 --frontier --batch "${layer##*,}" --layer "$layer" >"$dir/log.txt" 2>&1 || tail -5 "$dir/log.txt"
  if [ -s "$OUT/tc_set/frontier_bf16.csv" ]; then tail -n +2 "$dir/frontier.csv"; else cat "$dir/frontier.csv"; fi >>"$OUT/tc_set/frontier_bf16.csv"
done
python3 docs/results/tc_set/table.py "$OUT/tc_set/frontier_bf16.csv"
