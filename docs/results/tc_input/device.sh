#!/usr/bin/env bash
# On the GPU machine with .device/wgb_base.tar.xz and .device/wgb_tc.tar.xz carried (build.sh): the sampled
# error of the wgmma kernel's NHWC forwards in each build (the bench's frontier: relative L2 error against
# FP64 at sampled outputs, f4x3_standard, VGG-16 64@224 b8 and ResNet-50 64@56 b1, whose tiles meet the
# image's borders), then the speed of both builds in turn, twice (docs/results/wgmma_bounds/device.sh).
set -uo pipefail
. tools/device/stage.sh
export NOVA_FUSED_KERNEL=wgmma
for variant in base tc; do
  use_stage wgb_$variant
  for layer in 64,224,8 64,56,1; do
    dir=$(mktemp -d)
    timeout 60 stage_bench "$dir" --frontier --batch "${layer##*,}" --layer "$layer" --transform f4x3_standard >"$dir/log.txt" 2>&1
    awk -F, -v v=$variant '$5 == "NHWC" && $8 == "fused" { printf "error %-4s %s %s@%s b%s %s %s %s us, error %s (kernel %s)\n", v, $1, $2, $3, $4, $5, $7, $9, $11, $13 }' "$dir/frontier.csv"
  done
done
VARIANTS="base tc" LAYERS="${LAYERS:-64,224,32 64,224,8 64,224,1 64,56,32 64,56,8}" docs/results/wgmma_bounds/device.sh | grep NHWC
