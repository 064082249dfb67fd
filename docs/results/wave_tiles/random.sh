#!/usr/bin/env bash
# The experiment build .device/wgb_tiles (f4x3_standard only) on random shapes (nova-bench-conv --random 300
# --seed S, every path of each shape timed, the wgmma kernel among them) for each seed in SEEDS, with the
# shapes' own tile groups and with NOVA_WG_TILES=8 (groups of 8 where they are 16). Writes
# $OUT/randSEED_tilesT.csv and .log, packed into $OUT/random.tar.gz (the device tool brings back a limited
# number of files); compare.py reads them (gzipped) once unpacked.
set -uo pipefail
. tools/device/stage.sh
use_stage wgb_tiles
for seed in ${SEEDS:-201 202}; do
  for tiles in 16 8; do
    if [ $tiles = 8 ]; then export NOVA_WG_TILES=8; else unset NOVA_WG_TILES; fi
    dir=$(mktemp -d)
    stage_bench "$dir" --random 300 --seed "$seed" >"$OUT/rand${seed}_tiles$tiles.log" 2>&1
    cp "$dir/random.csv" "$OUT/rand${seed}_tiles$tiles.csv"
    echo "seed $seed tiles $tiles: $(tail -1 "$OUT/rand${seed}_tiles$tiles.log")"
  done
done
tar czf "$OUT/random.tar.gz" -C "$OUT" $(cd "$OUT" && ls rand*) && (cd "$OUT" && rm -f rand*)
