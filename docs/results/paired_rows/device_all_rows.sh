#!/usr/bin/env bash
# On the GPU machine, from the repository root: every row of the tensor-core consumer in the loop of pairs
# (all_rows_paired.patch, small build rolled3) beside v5.39's rows 1-4 (rolled) and bf306bd (base). Carried:
# .device/{base,rolled,rolled3}.tar.xz. The wgmma kernel forced, f4x3_standard, NHWC, three runs.
set -euo pipefail
NOVA_FUSED_KERNEL=wgmma BUILDS="base rolled rolled3" RUNS="1 2 3" tools/device/small_ab.sh >"$OUT/ab_all_rows.txt"
tools/device/small_ab_table.py "$OUT/ab_all_rows.txt" | tee "$OUT/table_all_rows.txt"
