#!/usr/bin/env bash
# The wgmma kernel with tile groups of 8 instead of 16 on small grids (NOVA_FUSED_WG_TILES=8), against
# 16 and the mma.sync kernel, each forced (NOVA_FUSED_KERNEL), alternating in each of RUNS (default 1),
# on the GPU machine from the repository root with the staged build carried. For each LAYERS entry
# "C,HW,N" and transform (TRANSFORMS, default f4x3_standard), the fused rows' graph µs (NHWC-f, NCHW-f):
# lines "layer transform variant run: layout µs" in $OUT/small_groups.txt, sorted at the end.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out"
. tools/device/stage.sh
use_stage build-cuda
for run in ${RUNS:-1}; do
  for layer in ${LAYERS:-64,224,1 64,56,1 64,224,8 64,56,8 64,224,32}; do
    for transform in ${TRANSFORMS:-f4x3_standard}; do
      for variant in mma wgmma16 wgmma8; do
        d=/tmp/sg/$variant$run-$transform-${layer//,/_}
        mkdir -p "$d"
        kernel=${variant%16}; kernel=${kernel%8}
        tiles=16; [ "$variant" = wgmma8 ] && tiles=8
        NOVA_FUSED_KERNEL=$kernel NOVA_FUSED_WG_TILES=$tiles stage_bench "$d" --layer "$layer" --transform "$transform" \
          >"$d.log" 2>&1 || echo "FAIL $variant $layer $transform"
        for layout in NHWC-f NCHW-f; do
          echo "$layer $transform $variant $run: $layout $(awk -F, -v l="$layout" '$5 == l { print $10; exit }' "$d/speed.csv")" \
            >>"$out/small_groups.txt"
        done
      done
    done
  done
done
sort "$out/small_groups.txt"
