#!/usr/bin/env bash
# The two fused kernels on NHWC images, each forced (NOVA_FUSED_KERNEL=mma, =wgmma), with the staged build
# (.device/build-cuda, or its pack_ab.sh delta with .device/base.tar.xz) on the GPU machine from the
# repository root: NHWC-f and AUTO's NHWC graph times (tools/device/ab_stages.sh, one run, BUILDS=new) at
# batches 1 and 8 (and 32 where not measured in results/v_slot_order), F(4,3) at C = 64 and F(2,3) at
# C = 64 and 128: the shapes where the wgmma kernel takes tile groups of 16. kernels.txt: one line a
# (layer, transform, kernel).
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
f43="64,56,1 64,56,8 64,224,1 64,224,8"
f23="64,56,1 64,56,8 64,56,32 128,28,1 128,28,8 128,28,32 128,112,1 128,112,8 128,112,32 64,224,1 64,224,8"
for kernel in mma wgmma; do
  for spec in "f4x3_standard:$f43" "f2x3_standard:$f23"; do
    NOVA_FUSED_KERNEL=$kernel BUILDS=new RUNS=1 LAYERS=${spec#*:} TRANSFORMS=${spec%%:*} LAYOUTS="NHWC-f NHWC" \
      OUT=$out/r/$kernel tools/device/ab_stages.sh >/dev/null
  done
  sed "s/ new 1:/ $kernel:/" "$out/r/$kernel/ab.txt" >>"$out/r/kernels.txt" && rm -rf "${out:?}/r/$kernel"
done
sort "$out/r/kernels.txt" | tee "$out/r/kernels_sorted.txt"
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
