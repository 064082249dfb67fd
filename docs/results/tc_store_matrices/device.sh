#!/usr/bin/env bash
# A/B of the tensor-core path's V stores by stmatrix (fused_wg_tc_store) and, as a third build, the same with a
# suspend-time hint on every mbarrier wait (wg_wait): small builds of the commit before (base), of the change (new)
# and of the change with the hint (hint), tools/device/build_small.sh with CONFIGS=f4x3_standard, carried as
# .device/{base,new,hint}.tar.xz. The wgmma kernel forced, f4x3_standard, NHWC fp16, graph replay, the builds in
# turn, twice (RUNS); one line a run, build and row; tools/device/small_ab_table.py tabulates them.
cd "$(dirname "$0")/../../.."
BUILDS=${BUILDS:-base new hint} LAYERS="64,56,8 64,224,1 64,224,8 64,224,32 64,56,32 shape:64,64,112,3" \
  NOVA_FUSED_KERNEL=wgmma exec tools/device/small_ab.sh
