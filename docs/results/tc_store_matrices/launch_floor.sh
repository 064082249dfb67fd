#!/usr/bin/env bash
# Graph-replay time of tiny to one-wave shapes on both fused kernels and cuDNN (the fixed cost of a launch).
set -uo pipefail
. tools/device/stage.sh
use_stage base
for k in wgmma mma; do
  for s in 64,64,8,1 64,64,16,1 64,64,32,1 64,64,56,1 64,64,112,1 64,64,224,1 64,64,56,8; do
    dir=$(mktemp -d)
    NOVA_FUSED_KERNEL=$k stage_bench "$dir" --shape $s --transform f4x3_standard >"$dir/log.txt" 2>&1 || tail -3 "$dir/log.txt"
    awk -F, -v k=$k '$5 == "NHWC-f" { printf "%-6s C,K,HW,N %s,%s,%s,%s graph %s us, cuDNN %s\n", k, $2, $2, $3, $4, $10, $11 }' "$dir/speed.csv"
  done
done
