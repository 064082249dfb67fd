#!/usr/bin/env bash
# On the GPU machine, from the repository root (carried: the small builds of build.sh as .device/NAME.tar.xz), the
# wgmma kernel forced, f4x3_standard, NHWC, three runs each. The calls of the session, in order:
#   1. base against tctable (ab.txt, table.txt);
#   2. Nsight Compute of both at ResNet-50 64@56 b8, as graph replay leaves the caches (ncu/*_base*, ncu/*_tctable*);
#   3. base against tctable again, with the plain launches' times (ab_2.txt, table_2.txt, table_2_plain.txt);
#   4. base, tctable and tcfrag, with a lone tile group and a 56 x 56 batch-1 shape (ab_3.txt, table_3.txt,
#      table_3_plain.txt).
set -euo pipefail
ab() { NOVA_FUSED_KERNEL=wgmma BUILDS=$1 RUNS="1 2 3" LAYERS=${3:-"64,224,32 64,224,8 64,224,1 64,56,32 64,56,8"} tools/device/small_ab.sh >"$OUT/$2"; }
ab "base tctable" ab.txt && tools/device/small_ab_table.py "$OUT/ab.txt" >"$OUT/table.txt"
for s in base tctable; do mkdir -p "$OUT/$s" && OUT=$OUT/$s STAGE=$s SHAPES=layer:64,56,8 docs/results/one_group_ring/ncu_lone.sh; done
ab "base tctable" ab_2.txt && tools/device/small_ab_table.py "$OUT/ab_2.txt" >"$OUT/table_2.txt"
tools/device/small_ab_table.py --plain "$OUT/ab_2.txt" >"$OUT/table_2_plain.txt"
ab "base tctable tcfrag" ab_3.txt "64,224,32 64,224,8 64,224,1 64,56,32 64,56,8 shape:64,64,8,1 shape:64,64,56,1"
tools/device/small_ab_table.py "$OUT/ab_3.txt" >"$OUT/table_3.txt"
tools/device/small_ab_table.py --plain "$OUT/ab_3.txt" >"$OUT/table_3_plain.txt"
