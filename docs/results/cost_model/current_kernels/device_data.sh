#!/usr/bin/env bash
# The cost model's training data measured with today's kernels (the fused v5.17 build, machine code
# of commit e89896a), on the GPU machine from the repository root with .device/build-cuda.tar.xz and
# .device/build-cuda.path carried: every transform on both paths at the benchmark layers, batches 32,
# 8 and 1 (frontier_bB.csv), random shapes of each seed in SEEDS (randS.csv.gz), and of each seed in
# WGMMA_SEEDS once more with the wgmma fused kernel forced (NOVA_FUSED_KERNEL=wgmma: wgS.csv.gz), so
# that those shapes have both fused kernels' NHWC times. Stops starting runs after LIMIT seconds
# (default 520) and packs $OUT/r.tar.gz after each one (the device tool returns what a timeout left).
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
. tools/device/stage.sh
use_stage build-cuda
bench() { LD_LIBRARY_PATH=$stage/runtime:$stage/jit "$stage/tools/device/nova-bench-conv" "$@"; }
pack() { tar czf "$out/r.tar.gz.tmp" -C "$out" r && mv "$out/r.tar.gz.tmp" "$out/r.tar.gz"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader >"$out/r/gpu.txt"
for batch in ${BATCHES:-32 8 1}; do
  [ "$SECONDS" -lt "${LIMIT:-520}" ] || break
  mkdir -p "/tmp/f$batch"
  bench "/tmp/f$batch" --frontier --batch "$batch" >"$out/r/frontier_b$batch.log" 2>&1
  cp "/tmp/f$batch/frontier.csv" "$out/r/frontier_b$batch.csv"
  echo "frontier b$batch: ${SECONDS}s"
  pack
done
random() {  # NAME SEED [ENV...]
  local name=$1 seed=$2
  shift 2
  mkdir -p "/tmp/$name"
  ([ $# -eq 0 ] || export "$@"; bench "/tmp/$name" --random 300 --seed "$seed" >"$out/r/$name.log" 2>&1)
  gzip -c "/tmp/$name/random.csv" >"$out/r/$name.csv.gz"
  echo "$name: ${SECONDS}s: $(tail -1 "$out/r/$name.log")"
  pack
}
for seed in ${WGMMA_SEEDS:-}; do
  [ "$SECONDS" -lt "${LIMIT:-520}" ] && random "wg$seed" "$seed" NOVA_FUSED_KERNEL=wgmma
done
for seed in ${SEEDS:-}; do
  [ "$SECONDS" -lt "${LIMIT:-520}" ] && random "rand$seed" "$seed"
done
rm -rf "${out:?}/r"  # r.tar.gz holds it all: the device tool returns at most eight files
