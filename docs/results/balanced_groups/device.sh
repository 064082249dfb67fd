#!/usr/bin/env bash
# A/B of balanced tile groups on the wgmma kernel's tensor-core path (fused_wg_group_size): small builds of the
# commit before (base) and of the change (new), tools/device/build_small.sh with CONFIGS=f4x3_standard, carried as
# .device/{base,new}.tar.xz. The wgmma kernel forced, f4x3_standard, NHWC, graph replay, the builds in turn, twice;
# the bench's layers and shapes (C,K,HW,N) whose tile grids the rule balances, and two it leaves alone (64@224 b8,
# 64@56 b32). One line a run, build and row; tools/device/small_ab_table.py tabulates them.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. tools/device/stage.sh
export NOVA_FUSED_KERNEL=wgmma
for run in ${RUNS:-1 2}; do
  for row in layer:64,56,8 layer:64,224,1 layer:64,224,8 layer:64,56,32 shape:64,64,56,12 shape:64,64,112,3 shape:64,32,28,32; do
    for build in ${BUILDS:-base new}; do
      use_stage "$build"
      dir=$(mktemp -d)
      stage_bench "$dir" --${row%%:*} "${row#*:}" --transform f4x3_standard >"$dir/log.txt" 2>&1 || cat "$dir/log.txt"
      awk -F, -v b="$build" -v r="$run" '$5 == "NHWC-f" { printf "run %s %-6s %s %s@%s b%s %s graph %s us, cuDNN %s\n", r, b, $1, $2, $3, $4, $5, $10, $11 }' \
        "$dir/speed.csv"
    done
  done
done
