#!/usr/bin/env bash
# A/B of the U ring where each block takes one tile group on the tensor-core path (WgTcOneGroupPlan, the ring in the
# second V slot's place): small builds of the commit before (base), of the change with 8 stages (new), with 4
# (ring4) and of the rolled rows (rolled), tools/device/build_small.sh with CONFIGS=f4x3_standard, carried as
# .device/{base,new,ring4,rolled}.tar.xz. The wgmma kernel forced, f4x3_standard, NHWC fp16, graph replay, the
# builds in turn, twice (RUNS). Rows: grids whose blocks take one group (ResNet-50 64@56 b8 and b1, 64@112 b1, 64@8
# b1) and two whose blocks take several (VGG-16 64@224 b1, ResNet-50 64@56 b32), which the change leaves alone.
# tools/device/small_ab_table.py tabulates them.
cd "$(dirname "$0")/../../.."
BUILDS=${BUILDS:-base new ring4 rolled} LAYERS="64,56,8 64,56,1 shape:64,64,112,1 shape:64,64,8,1 64,224,1 64,56,32" \
  NOVA_FUSED_KERNEL=wgmma exec tools/device/small_ab.sh
