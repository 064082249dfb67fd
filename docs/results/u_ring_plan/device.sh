#!/usr/bin/env bash
# A step of the wgmma kernel's tensor-core input path on the GPU machine, two small builds carried
# (.device/wgb_$BEFORE.tar.xz and .device/wgb_$AFTER.tar.xz, CONFIGS=f4x3_standard tools/device/build_small.sh;
# default BEFORE=bf16tc, v5.27, AFTER=plan, v5.28). The wgmma kernel forced, f4x3_standard, the builds in turn,
# twice (docs/results/wgmma_bounds/device.sh), on the layers that take the tensor-core path (NHWC; their NCHW
# rows, which never take it, are the control): ab.txt; then Nsight Compute's full set of the NHWC kernel at
# VGG-16 64@224 b32 in both builds (tools/device/ncu_ab.sh, SOURCE=1). Packs $OUT/r.tar.gz.
set -u
o=$OUT/r
before=${BEFORE:-bf16tc} after=${AFTER:-plan}
mkdir -p "$o"
VARIANTS="$before $after" LAYERS="64,224,32 64,224,8 64,224,1 64,56,32 64,56,8" docs/results/wgmma_bounds/device.sh | tee "$o/ab.txt"
NEW=wgb_$after BASE=wgb_$before NOVA_FUSED_KERNEL=wgmma SOURCE=1 tools/device/ncu_ab.sh 64,224,32 f4x3_standard \
  fused_wgmma_nhwc_f16_v0 fused_wgmma_nhwc_f16_v0 "$o/ncu_64x224_b32" 2>&1 | tail -8
tar czf "$OUT/r.tar.gz" -C "$OUT" r
