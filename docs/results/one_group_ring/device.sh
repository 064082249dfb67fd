#!/usr/bin/env bash
# A/B of the U ring where each block takes one tile group on the tensor-core path (WgTcOneGroupPlan, the ring in the
# second V slot's place): small builds of the commit before (base), of the change with 8 stages (new) and with 4
# (ring4), tools/device/build_small.sh with CONFIGS=f4x3_standard, carried as .device/{base,new,ring4}.tar.xz. The
# wgmma kernel forced, f4x3_standard, NHWC fp16, graph replay, the builds in turn, twice (RUNS). Rows: grids whose
# blocks take one group (ResNet-50 64@56 b8 and b1, 64@112 b1, 64@8 b1) and two whose blocks take several (VGG-16
# 64@224 b1, ResNet-50 64@56 b32), which the change leaves alone. tools/device/small_ab_table.py tabulates them.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. tools/device/stage.sh
export NOVA_FUSED_KERNEL=wgmma
for run in ${RUNS:-1 2}; do
  for row in layer:64,56,8 layer:64,56,1 shape:64,64,112,1 shape:64,64,8,1 layer:64,224,1 layer:64,56,32; do
    for build in ${BUILDS:-base new ring4 rolled}; do
      use_stage "$build"
      dir=$(mktemp -d)
      stage_bench "$dir" --${row%%:*} "${row#*:}" --transform f4x3_standard >"$dir/log.txt" 2>&1 || cat "$dir/log.txt"
      awk -F, -v b="$build" -v r="$run" '$5 == "NHWC-f" { printf "run %s %-6s %s %s@%s b%s %s graph %s us, cuDNN %s\n", r, b, $1, $2, $3, $4, $5, $10, $11 }' \
        "$dir/speed.csv"
    done
  done
done
