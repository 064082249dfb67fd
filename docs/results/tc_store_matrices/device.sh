#!/usr/bin/env bash
# A/B of the tensor-core path's V stores by stmatrix (fused_wg_tc_store) and, as a third build, the same with a
# suspend-time hint on every mbarrier wait (wg_wait): small builds of the commit before (base), of the change (new)
# and of the change with the hint (hint), tools/device/build_small.sh with CONFIGS=f4x3_standard, carried as
# .device/{base,new,hint}.tar.xz. The wgmma kernel forced, f4x3_standard, NHWC fp16, graph replay, the builds in
# turn, twice (RUNS); one line a run, build and row; tools/device/small_ab_table.py tabulates them.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. tools/device/stage.sh
export NOVA_FUSED_KERNEL=wgmma
for run in ${RUNS:-1 2}; do
  for row in layer:64,56,8 layer:64,224,1 layer:64,224,8 layer:64,224,32 layer:64,56,32 shape:64,64,112,3; do
    for build in ${BUILDS:-base new hint}; do
      use_stage "$build"
      dir=$(mktemp -d)
      stage_bench "$dir" --${row%%:*} "${row#*:}" --transform f4x3_standard >"$dir/log.txt" 2>&1 || cat "$dir/log.txt"
      awk -F, -v b="$build" -v r="$run" '$5 == "NHWC-f" { printf "run %s %-6s %s %s@%s b%s %s graph %s us, cuDNN %s\n", r, b, $1, $2, $3, $4, $5, $10, $11 }' \
        "$dir/speed.csv"
    done
  done
done
