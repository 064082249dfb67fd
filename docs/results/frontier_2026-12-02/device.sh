#!/usr/bin/env bash
# The speed/accuracy frontier of the build of 5863a82 (the kernels of docs/runtime.md's "The bench on the forty-fifth
# session's build"), batch 32: every 3x3 transform on both paths (the fused configurations on each fused kernel that
# runs them), cuDNN and AUTO, measured error against FP64, one layer a bench call, the rows appended to
# $OUT/frontier.csv. On the GPU machine with .device/build-cuda.tar.xz and .device/build-cuda.path carried
# (tools/device/build_gpu.sh); LAYERS (C,HW,N of the bench's layers) splits the run over calls.
set -uo pipefail
out=${OUT:-/tmp}
. tools/device/stage.sh
use_stage build-cuda
for layer in ${LAYERS:-64,56,32 128,28,32 256,14,32 512,7,32 64,224,32 128,112,32 256,56,32 512,28,32 512,14,32}; do
  dir=$(mktemp -d)
  stage_bench "$dir" --frontier --batch "${layer##*,}" --layer "$layer" >"$dir/log.txt" 2>&1 || tail -5 "$dir/log.txt"
  cat "$dir/log.txt" >>"$out/frontier.log"
  if [ -s "$out/frontier.csv" ]; then tail -n +2 "$dir/frontier.csv"; else cat "$dir/frontier.csv"; fi >>"$out/frontier.csv"
  echo "$layer: $(($(wc -l <"$dir/frontier.csv") - 1)) rows"
done
