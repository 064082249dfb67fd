#!/usr/bin/env bash
# The seventeenth session's training data for AUTO's cost model, measured by the staged build (the
# NCHW output transform in tile pairs, commit 872702e): nova-bench-conv --frontier at each batch in
# BATCHES (default "32 8 1") and --random 300 at each seed in SEEDS (none by default), fp16, into
# $OUT (frontier_bB.csv and .log, seedS.csv.gz and .log), each file written as soon as it is measured;
# prints the seconds each took. Run on the GPU machine from the repository root with
# .device/build-cuda.tar.xz and .device/build-cuda.path carried.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
. tools/device/stage.sh
use_stage build-cuda
out=${OUT:-/tmp/o}
mkdir -p "$out"
prefix=${PREFIX:-}
bench() { LD_LIBRARY_PATH=$stage/runtime:$stage/jit $stage/tools/device/nova-bench-conv "$@"; }
for batch in ${BATCHES-32 8 1}; do
  start=$(date +%s)
  mkdir -p /tmp/frontier_b$batch
  bench /tmp/frontier_b$batch --frontier --batch "$batch" >"$out/${prefix}frontier_b$batch.log" 2>&1
  cp /tmp/frontier_b$batch/frontier.csv "$out/${prefix}frontier_b$batch.csv"
  echo "frontier batch $batch: $(( $(date +%s) - start )) s"
done
for seed in ${SEEDS:-}; do
  start=$(date +%s)
  mkdir -p /tmp/seed$seed
  bench /tmp/seed$seed --random 300 --seed "$seed" >"$out/${prefix}seed$seed.log" 2>&1
  gzip -c /tmp/seed$seed/random.csv >"$out/${prefix}seed$seed.csv.gz"
  echo "seed $seed: $(( $(date +%s) - start )) s; $(tail -1 "$out/${prefix}seed$seed.log")"
done
