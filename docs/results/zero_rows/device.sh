#!/usr/bin/env bash
# On the GPU machine (carried: .device/tcfrag.tar.xz and .device/zerotrim.tar.xz): v5.40 against zero_rows.patch.
set -euo pipefail
NOVA_FUSED_KERNEL=wgmma BUILDS="tcfrag zerotrim" RUNS="1 2 3" LAYERS="64,224,32 64,224,8 64,224,1 64,56,32 64,56,8 shape:64,64,8,1" \
  tools/device/small_ab.sh >"$OUT/ab.txt"
tools/device/small_ab_table.py "$OUT/ab.txt" | tee "$OUT/table.txt"
