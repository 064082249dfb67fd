#!/usr/bin/env bash
# The final build's speed/accuracy frontier at batches 32, 8 and 1 (frontier/frontier_bB.csv, .log;
# every transform on both paths, cuDNN and AUTO with this session's fit) and what bias + ReLU add to
# each batch-32 layer's forward (epilogue/epilogue.csv, log), on the GPU machine from the repository
# root with .device/build-cuda.tar.xz and .device/build-cuda.path carried. Packs $OUT/r.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r/frontier" "$out/r/epilogue"
. tools/device/stage.sh
use_stage build-cuda
mkdir -p /tmp/f32 /tmp/f8 /tmp/f1 /tmp/epilogue  # the bench writes into existing folders only
for batch in 32 8 1; do
  stage_bench "/tmp/f$batch" --frontier --batch "$batch" >"$out/r/frontier/frontier_b$batch.log" 2>&1
  cp "/tmp/f$batch/frontier.csv" "$out/r/frontier/frontier_b$batch.csv"
done
stage_bench /tmp/epilogue --epilogue >"$out/r/epilogue/log" 2>&1
cp /tmp/epilogue/epilogue.csv "$out/r/epilogue/"
tail -40 "$out/r/epilogue/log"
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
