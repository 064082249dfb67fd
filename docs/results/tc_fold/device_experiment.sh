#!/usr/bin/env bash
# On the GPU machine with .device/wgb_base.tar.xz and .device/wgb_tc_fold.tar.xz carried (build.sh, README.md): the
# experiment's kernel against the base, the wgmma kernel forced, f4x3_standard:
#   1. each build's frontier rows (time and measured error against FP64) of the fused configurations, in $OUT/frontier_BUILD.csv;
#   2. the A/B of graph times (docs/results/wgmma_bounds/device.sh), two runs, in $OUT/ab.txt.
set -uo pipefail
out=${OUT:-/tmp}
. tools/device/stage.sh
export NOVA_FUSED_KERNEL=wgmma
for build in base tc_fold; do
  use_stage wgb_$build
  for layer in 64,224,32 64,224,8 64,224,1 64,56,32 64,56,8; do
    dir=$(mktemp -d)
    stage_bench "$dir" --frontier --batch "${layer##*,}" --layer "$layer" >"$dir/log.txt" 2>&1 || tail -5 "$dir/log.txt"
    if [ -s "$out/frontier_$build.csv" ]; then tail -n +2 "$dir/frontier.csv"; else cat "$dir/frontier.csv"; fi >>"$out/frontier_$build.csv"
  done
  echo "== $build: fused rows (layer, batch, layout, us, error)"
  awk -F, '$8 == "fused" { print $1, $3, $4, $5, $9, $11 }' "$out/frontier_$build.csv"
done
VARIANTS="base tc_fold" docs/results/wgmma_bounds/device.sh | tee "$out/ab.txt"
