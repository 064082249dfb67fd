#!/usr/bin/env bash
# Training data for AUTO's choice between the two fused kernels (the wgmma kernel where the cost model
# prices it faster than the mma.sync one: gpu_cost_model.hpp fused_runs_wgmma), on the GPU machine
# from the repository root with .device/build-cuda.tar.xz and .device/build-cuda.path carried. The
# bench now times every named fused configuration on each fused kernel that runs it (csv column
# `kernel`): the frontier of the benchmark layers at batches 32, 8 and 1 (frontier_bB.csv, .log), then
# tools/device/auto_random.sh for each seed in SEEDS while less than BUDGET seconds (default 500) have
# passed (randS_new.csv.gz, .log). Everything is packed into $OUT/r.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
. tools/device/stage.sh
use_stage build-cuda
start=$SECONDS
for batch in ${BATCHES:-32 8 1}; do
  mkdir -p "/tmp/f$batch"  # the bench writes into existing folders only
  stage_bench "/tmp/f$batch" --frontier --batch "$batch" >"$out/r/frontier_b$batch.log" 2>&1
  cp "/tmp/f$batch/frontier.csv" "$out/r/frontier_b$batch.csv"
  echo "frontier b$batch: $((SECONDS - start)) s"
done
for seed in ${SEEDS:-}; do
  [ $((SECONDS - start)) -lt "${BUDGET:-500}" ] || break
  SEEDS=$seed OUT=$out/r tools/device/auto_random.sh
  echo "seed $seed: $((SECONDS - start)) s"
done
gzip "$out"/r/*.csv
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
