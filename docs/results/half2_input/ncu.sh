#!/usr/bin/env bash
# Fifth device call: Nsight Compute's full set of the wgmma kernel (forced) at VGG-16 64@224 b32 NHWC,
# f4x3_standard, in the base build and the half2 + next-patch-ahead one (device4.sh's builds), each summed
# by role (tools/device/ncu_ab.sh SOURCE=1). $OUT/r.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
NOVA_FUSED_KERNEL=wgmma SOURCE=1 tools/device/ncu_ab.sh 64,224,32 f4x3_standard fused_wgmma_nhwc_f16_v0 \
  fused_wgmma_nhwc_f16_v0 "$out/r/ncu_nhwc_64x224"
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
