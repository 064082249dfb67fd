#!/usr/bin/env bash
# Fused v5.32 on the GPU machine: two small builds carried (CONFIGS="f4x3_standard f4x3_fp16"
# tools/device/build_small.sh: .device/wgb_base.tar.xz of the commit before, .device/wgb_opaque.tar.xz of the change).
# The wgmma kernel forced (NOVA_FUSED_KERNEL=wgmma), both layouts, graph replay, the builds in turn, twice, for
# f4x3_standard (the tensor-core path in NHWC, no spills before) and f4x3_fp16 (the FP path, whose NHWC kernel
# spilled 120 bytes before) on the layers where the wgmma kernel takes groups of 16: one line a layer, layout,
# transform, build and run (ab.txt under $OUT/r, packed into $OUT/r.tar.gz).
set -uo pipefail
. tools/device/stage.sh
export NOVA_FUSED_KERNEL=wgmma
o=$OUT/r
mkdir -p "$o"
for run in 1 2; do
  for layer in ${LAYERS:-64,224,32 64,224,8 64,56,32 64,224,1}; do
    for transform in f4x3_standard f4x3_fp16; do
      for build in base opaque; do
        use_stage wgb_$build
        dir=$(mktemp -d)
        stage_bench "$dir" --layer $layer --transform $transform >"$dir/log.txt" 2>&1
        awk -F, -v b=$build -v r=$run -v t=$transform '$5 ~ /-f$/ { printf "run %s %-7s %-14s %s %s@%s b%s %s graph %s us, cuDNN %s\n", r, b, t, $1, $2, $3, $4, $5, $10, $11 }' "$dir/speed.csv"
      done
    done
  done
done | tee "$o/ab.txt"
tar czf "$OUT/r.tar.gz" -C "$OUT" r
