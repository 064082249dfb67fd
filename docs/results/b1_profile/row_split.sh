#!/usr/bin/env bash
# The mma.sync kernel at VGG-16 64@224 NHWC batch 1 and 8 (f4x3_standard) with each row split forced
# (NOVA_FUSED_ROW_SPLIT=1, 2, 4, 8) and with the runtime's choice, twice each, graph replay; prints
# the fused rows (NHWC-f, NCHW-f) of the bench's speed.csv. On the GPU machine with the committed
# build carried (.device/build-cuda.tar.xz).
set -uo pipefail
. tools/device/stage.sh
use_stage build-cuda
export NOVA_FUSED_KERNEL=mma
for run in 1 2; do
  for batch in 1 8; do
    for split in choice 1 2 4 8; do
      dir=$(mktemp -d)
      if [ $split = choice ]; then unset NOVA_FUSED_ROW_SPLIT; else export NOVA_FUSED_ROW_SPLIT=$split; fi
      stage_bench "$dir" --layer 64,224,$batch --transform f4x3_standard >"$dir/log.txt" 2>&1
      awk -F, -v s=$split -v r=$run '$5 ~ /-f$/ { print "run " r " split " s ": " $1 " " $2 "@" $3 " b" $4 " " $5 " " $6 " graph " $10 " us, cuDNN " $11 }' "$dir/speed.csv"
    done
  done
done
