#!/usr/bin/env bash
# The wgmma kernel with 136 registers a producer thread and 232 a consumer one (128 and 248 before), the NHWC
# producers loading both items' patches before the first transform (new), against the committed kernel
# (base); small builds (tools/device/build_small.sh), the wgmma kernel forced on both layouts, alternating,
# two runs; then Nsight Compute's full set of the new kernel at VGG-16 64@224 b32 NHWC. $OUT/r.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
NOVA_FUSED_KERNEL=wgmma LAYERS="64,224,32 64,224,8 64,56,32 128,112,32" TRANSFORMS=f4x3_standard LAYOUTS="NCHW-f NHWC-f" \
  OUT=$out/r/w tools/device/ab_stages.sh >/dev/null
mv "$out/r/w/ab.txt" "$out/r/ab.txt" && rm -rf "$out/r/w"
tools/device/ab_table.py "$out/r/ab.txt" | tee "$out/r/ab_table.txt"
NOVA_FUSED_KERNEL=wgmma BUILDS=new SOURCE=1 tools/device/ncu_ab.sh 64,224,32 f4x3_standard fused_wgmma_nhwc_f16_v0 \
  fused_wgmma_nhwc_f16_v0 "$out/r/ncu_nhwc_64x224"
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
