#!/usr/bin/env bash
# On the GPU machine, from the repository root, with the full CUDA build staged (tools/device/build_gpu.sh; carry
# .device/build-cuda.tar.xz and .device/build-cuda.path): the GPU suite, then the bench's speed/accuracy frontier
# (every 3x3 transform on both paths, time and measured error; nova-bench-conv --frontier) on the layers the
# tensor-core input path takes and on VGG-16 128@112, all frontier rows in one file, frontier.csv.
# Usage: OUT=dir docs/results/tc_set/device.sh
set -uo pipefail
mkdir -p "$OUT/tc_set"
tools/device/run_gpu_tests.sh --log "$OUT/tc_set/gpu_tests.txt" >/dev/null 2>&1
tail -3 "$OUT/tc_set/gpu_tests.txt"
. tools/device/stage.sh
use_stage build-cuda
for layer in 64,224,32 64,224,8 64,224,1 64,56,32 64,56,8 128,112,32; do
  dir=$(mktemp -d)
  stage_bench "$dir" --frontier --batch "${layer##*,}" --layer "$layer" >"$dir/log.txt" 2>&1 || tail -5 "$dir/log.txt"
  if [ -s "$OUT/tc_set/frontier.csv" ]; then tail -n +2 "$dir/frontier.csv"; else cat "$dir/frontier.csv"; fi >>"$OUT/tc_set/frontier.csv"
done
python3 docs/results/tc_set/table.py "$OUT/tc_set/frontier.csv"
