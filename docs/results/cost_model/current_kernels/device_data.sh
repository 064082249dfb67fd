#!/usr/bin/env bash
# The cost model's training data measured with today's kernels (the fused v5.17 kernels), on the GPU
# machine from the repository root with .device/build-cuda.tar.xz and .device/build-cuda.path carried:
# every transform on both paths at the benchmark layers at batches 32, 8 and 1, or those in BATCHES
# (frontier_bB.csv); random shapes of each seed in SEEDS (randS.csv.gz); each seed in WGMMA_SEEDS once
# more with the wgmma fused kernel forced (NOVA_FUSED_KERNEL=wgmma: wgS.csv.gz), so that those shapes
# have both fused kernels' NHWC times, and the benchmark layers at each batch in WGMMA_BATCHES with it
# forced (wg_frontier_bB.csv). Stops starting runs after LIMIT seconds (default 520) and packs
# $OUT/r.tar.gz after each one (the device tool returns what a timeout left). README.md: the calls.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
. tools/device/stage.sh
use_stage build-cuda
pack() { tar czf "$out/r.tar.gz.tmp" -C "$out" r && mv "$out/r.tar.gz.tmp" "$out/r.tar.gz"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader >"$out/r/gpu.txt"
# One bench run: NAME ENV ARGS... (ENV: "" or VAR=VALUE for that run) into $out/r/NAME.log and NAME.csv
# (a frontier) or NAME.csv.gz (random shapes); none once LIMIT seconds have passed.
measure() {
  local name=$1 env=$2
  shift 2
  [ "$SECONDS" -lt "${LIMIT:-520}" ] || return 0
  mkdir -p "/tmp/$name"
  ([ -z "$env" ] || export "$env"; stage_bench "/tmp/$name" "$@" >"$out/r/$name.log" 2>&1)
  if [ -f "/tmp/$name/random.csv" ]; then
    gzip -c "/tmp/$name/random.csv" >"$out/r/$name.csv.gz"
  else
    cp "/tmp/$name/frontier.csv" "$out/r/$name.csv"
  fi
  echo "$name: ${SECONDS}s: $(tail -1 "$out/r/$name.log")"
  pack
}
for batch in ${BATCHES-32 8 1}; do measure "frontier_b$batch" "" --frontier --batch "$batch"; done
for batch in ${WGMMA_BATCHES:-}; do measure "wg_frontier_b$batch" NOVA_FUSED_KERNEL=wgmma --frontier --batch "$batch"; done
for seed in ${WGMMA_SEEDS:-}; do measure "wg$seed" NOVA_FUSED_KERNEL=wgmma --random 300 --seed "$seed"; done
for seed in ${SEEDS:-}; do measure "rand$seed" "" --random 300 --seed "$seed"; done
rm -rf "${out:?}/r"  # r.tar.gz holds it all: the device tool returns at most eight files
