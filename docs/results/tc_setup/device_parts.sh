#!/usr/bin/env bash
# On the GPU machine, from the repository root: the setup's parts, each left out (wrong outputs: bounds). Carried:
# .device/{base,nosetup,notable,nozero}.tar.xz, small builds (tools/device/build_small.sh) of bf306bd and of it with
# no_setup.patch, no_table.patch (no table, no fragments from it) and no_zero.patch (the patch slots not zeroed).
set -euo pipefail
NOVA_FUSED_KERNEL=wgmma BUILDS="base nosetup notable nozero" LAYERS="64,56,8 64,224,1 64,56,32" RUNS="1 2 3" \
  tools/device/small_ab.sh >"$OUT/ab_parts.txt"
tools/device/small_ab_table.py "$OUT/ab_parts.txt" | tee "$OUT/table_parts.txt"
