#!/usr/bin/env bash
# The tensor-core input path's patches a pair a copy (Fused v5.34) against a tile a copy, on the GPU machine: two small
# builds carried (tools/device/build_small.sh: .device/shape.tar.xz of the commit before, .device/pairs.tar.xz of the
# change), the wgmma kernel forced, f4x3_standard, graph replay, the builds in turn, twice (tools/device/small_ab.sh:
# ab.txt under $OUT). Then Nsight Compute of the NHWC fp16 kernel at VGG-16 64@224 b32 in both builds
# (ncu_64x224_b32_{base,new}.txt).
set -uo pipefail
NOVA_FUSED_KERNEL=wgmma BUILDS="shape pairs" tools/device/small_ab.sh | tee "$OUT/ab.txt"
BASE=shape NEW=pairs tools/device/ncu_ab.sh 64,224,32 f4x3_standard fused_wgmma_nhwc_f16_v0 fused_wgmma_nhwc_f16_v0 "$OUT/ncu_64x224_b32"
