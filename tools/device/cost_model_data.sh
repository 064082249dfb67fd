#!/usr/bin/env bash
# Training data for AUTO's cost model (tools/device/fit_cost_model.py), measured by the staged build on the GPU
# machine from the repository root with .device/build-cuda.tar.xz and .device/build-cuda.path carried: the
# benchmark layers at each batch in BATCHES (default 32 8 1; frontier_bB.csv, .log: every transform on both
# paths, each fused configuration on both fused kernels), then for each seed in TC_SEEDS 300 random shapes
# with C = 64 and K up to 64 (RANDOM_C=64: the shapes of the wgmma kernel's tensor-core input path, which free
# random shapes seldom reach), then for each seed in SEEDS 300 free random shapes, while less than BUDGET
# seconds (default 540) have passed (randS_new.csv, .log; tools/device/auto_random.sh). Everything is gzipped
# and packed into $OUT/r.tar.gz. docs/results/wgmma_choice/ and docs/results/tc_choice/ were measured by it.
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
for seed in ${TC_SEEDS:-}; do
  [ $((SECONDS - start)) -lt "${BUDGET:-540}" ] || break
  SEEDS=$seed RANDOM_C=64 OUT=$out/r tools/device/auto_random.sh
  echo "seed $seed (C = 64): $((SECONDS - start)) s"
done
for seed in ${SEEDS:-}; do
  [ $((SECONDS - start)) -lt "${BUDGET:-540}" ] || break
  SEEDS=$seed OUT=$out/r tools/device/auto_random.sh
  echo "seed $seed: $((SECONDS - start)) s"
done
gzip "$out"/r/*.csv
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
