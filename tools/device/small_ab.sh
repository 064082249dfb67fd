#!/usr/bin/env bash
# A/B of small builds (tools/device/build_small.sh NAME, carried as .device/NAME.tar.xz) on the GPU machine, from the
# repository root: in each run the builds in turn, one call of each build's own nova-bench-conv (with its libraries) a
# layer, the fused rows of the layouts asked for. One line a run, build, layer and layout on stdout:
#   run R BUILD NET C@HW bN LAYOUT graph US us, cuDNN US; plain US us, cuDNN US
# (graph replay, then plain launches), which tools/device/small_ab_table.py tabulates (the first build the base).
# Environment: BUILDS (required, e.g. "base new"), LAYERS (C,HW,N of the bench's layers, or shape:C,K,HW,N for a
# shape of the bench's --shape; default "64,224,32 64,224,8 64,224,1 64,56,32 64,56,8"), TRANSFORM (default
# f4x3_standard), LAYOUTS (default "NHWC-f"), RUNS (default "1 2"); NOVA_FUSED_KERNEL (wgmma, mma) forces a fused kernel as it does for the runtime.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tools/device/stage.sh
for run in ${RUNS:-1 2}; do
  for layer in ${LAYERS:-64,224,32 64,224,8 64,224,1 64,56,32 64,56,8}; do
    for build in ${BUILDS:?}; do
      use_stage "$build"
      dir=$(mktemp -d)
      case $layer in
        shape:*) what=(--shape "${layer#shape:}") ;;
        *) what=(--layer "$layer") ;;
      esac
      stage_bench "$dir" "${what[@]}" --transform "${TRANSFORM:-f4x3_standard}" >"$dir/log.txt" 2>&1 || cat "$dir/log.txt"
      awk -F, -v b="$build" -v r="$run" -v layouts=" ${LAYOUTS:-NHWC-f} " \
        'index(layouts, " " $5 " ") { printf "run %s %-6s %s %s@%s b%s %s graph %s us, cuDNN %s; plain %s us, cuDNN %s\n", r, b, $1, $2, $3, $4, $5, $10, $11, $7, $8 }' \
        "$dir/speed.csv"
    done
  done
done
