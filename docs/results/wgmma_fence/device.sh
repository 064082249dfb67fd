#!/usr/bin/env bash
# The consumer's wgmma.fence after the U barrier's wait (ptxas's C7519 notes gone) against before it, on the GPU
# machine: two small builds carried (tools/device/build_small.sh: .device/shape.tar.xz of the commit before with
# the bench's --shape, .device/fence.tar.xz of the change), the wgmma kernel forced, f4x3_standard, graph replay,
# the builds in turn, twice: one line a layer, layout, build and run (ab.txt). (The call also ran an earlier form of
# tools/device/wgmma_stage_rate.cu first; ../consumer_floor/rate.txt, by the committed form, supersedes its output.)
set -uo pipefail
. tools/device/stage.sh
export NOVA_FUSED_KERNEL=wgmma
for run in 1 2; do
  for layer in ${LAYERS:-64,224,32 64,224,8 64,224,1 64,56,32 64,56,8}; do
    for build in shape fence; do
      use_stage $build
      dir=$(mktemp -d)
      stage_bench "$dir" --layer $layer --transform f4x3_standard >"$dir/log.txt" 2>&1 || cat "$dir/log.txt"
      awk -F, -v b=$build -v r=$run '$5 ~ /-f$/ { printf "run %s %-6s %s %s@%s b%s %s graph %s us, cuDNN %s\n", r, b, $1, $2, $3, $4, $5, $10, $11 }' "$dir/speed.csv"
    done
  done
done | tee "$OUT/ab.txt"
