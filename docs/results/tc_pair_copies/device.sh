#!/usr/bin/env bash
# The tensor-core input path's patches a pair a copy (Fused v5.34) against a tile a copy, on the GPU machine: two small
# builds carried (tools/device/build_small.sh: .device/shape.tar.xz of the commit before, .device/pairs.tar.xz of the
# change), the wgmma kernel forced, f4x3_standard, graph replay, the builds in turn, twice: one line a layer, layout,
# build and run (ab.txt under $OUT). Then Nsight Compute of the NHWC fp16 kernel at VGG-16 64@224 b32 in both builds
# (ncu_64x224_b32_{base,new}.txt).
set -uo pipefail
. tools/device/stage.sh
export NOVA_FUSED_KERNEL=wgmma
for run in 1 2; do
  for layer in ${LAYERS:-64,224,32 64,224,8 64,224,1 64,56,32 64,56,8}; do
    for build in shape pairs; do
      use_stage $build
      dir=$(mktemp -d)
      stage_bench "$dir" --layer $layer --transform f4x3_standard >"$dir/log.txt" 2>&1 || cat "$dir/log.txt"
      awk -F, -v b=$build -v r=$run '$5 == "NHWC-f" { printf "run %s %-6s %s %s@%s b%s %s graph %s us, cuDNN %s\n", r, b, $1, $2, $3, $4, $5, $10, $11 }' "$dir/speed.csv"
    done
  done
done | tee "$OUT/ab.txt"
BASE=shape NEW=pairs tools/device/ncu_ab.sh 64,224,32 f4x3_standard fused_wgmma_nhwc_f16_v0 fused_wgmma_nhwc_f16_v0 "$OUT/ncu_64x224_b32"
