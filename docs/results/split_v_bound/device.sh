#!/usr/bin/env bash
# The bound of a channel-split wgmma kernel at C = 128 (16-tile groups over a 2-CTA cluster, each CTA half the
# channels): each CTA's work is the wgmma kernel's on C = 64, K = 128, so the split takes at least twice that
# kernel's time at the same tiles. One small build carried (tools/device/build_small.sh shape:
# .device/shape.tar.xz, f4x3_standard and f2x3_standard), f4x3_standard, NHWC, graph replay, each fused kernel
# forced (NOVA_FUSED_KERNEL=wgmma, =mma), twice: one line a shape, kernel and run (bound.txt under $OUT).
set -uo pipefail
. tools/device/stage.sh
use_stage shape
for run in 1 2; do
  for shape in 128,128,112,32 64,128,112,32 64,64,112,32 64,64,224,32 128,128,112,8 64,128,112,8; do
    for kernel in wgmma mma; do
      dir=$(mktemp -d)
      NOVA_FUSED_KERNEL=$kernel stage_bench "$dir" --shape $shape --transform f4x3_standard >"$dir/log.txt" 2>&1 || cat "$dir/log.txt"
      awk -F, -v k=$kernel -v r=$run -v s=$shape '$5 == "NHWC-f" { printf "run %s %-5s C,K,HW,N %-15s graph %8s us, cuDNN %8s\n", r, k, s, $10, $11 }' "$dir/speed.csv"
    done
  done
done | tee "$OUT/bound.txt"
