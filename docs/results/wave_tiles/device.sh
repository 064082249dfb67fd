#!/usr/bin/env bash
# Tile groups of 8 against 16 on the wgmma kernel where C = 64 (F(4,3), f4x3_standard): the experiment build
# .device/wgb_tiles (launch_fused_wg_conv with NOVA_WG_TILES=8 launching groups of 8 where the shape's are
# 16; README.md), both layouts, the wgmma kernel forced, graph replay, the two in turn, twice. On the GPU
# machine with .device/wgb_tiles.tar.xz carried; one line a layer, layout, group size and run.
# LAYERS="C,HW,N ..." times those layers.
set -uo pipefail
. tools/device/stage.sh
export NOVA_FUSED_KERNEL=wgmma
use_stage wgb_tiles
for run in 1 2; do
  for layer in ${LAYERS:-64,224,1 64,224,8 64,112,1 64,112,8 64,56,1 64,56,8 64,56,32}; do
    for tiles in 16 8; do
      dir=$(mktemp -d)
      if [ $tiles = 8 ]; then export NOVA_WG_TILES=8; else unset NOVA_WG_TILES; fi
      stage_bench "$dir" --layer $layer --transform f4x3_standard >"$dir/log.txt" 2>&1
      awk -F, -v v=$tiles -v r=$run '$5 ~ /-f$/ { printf "run %s tiles %-2s %s %s@%s b%s %s graph %s us, cuDNN %s\n", r, v, $1, $2, $3, $4, $5, $10, $11 }' "$dir/speed.csv"
    done
  done
done
