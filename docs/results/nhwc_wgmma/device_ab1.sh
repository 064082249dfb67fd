#!/usr/bin/env bash
# The wgmma kernel's NHWC steps of the twenty-fifth session, on the GPU machine, from the repository root,
# with .device/base.tar.xz (fused v5.13), .device/va.patch.xz (v5.14: NHWC staging swizzled, not padded, so
# the U ring holds 4 stages at C = 64; the NHWC store loop a run of a pixel a thread), .device/build-cuda.patch.xz
# (v5.14 and the NHWC producers loading two items' patches before transforming either) and
# .device/build-cuda.path carried (tools/device/pack_ab.sh va build-cuda): the three builds alternating in each of two runs (tools/device/ab_stages.sh,
# BUILDS), the wgmma kernel forced on both layouts at VGG-16 64@224 (batch 32 and 8) and ResNet-50 64@56
# (batch 32), f4x3_standard; then the mma.sync kernel forced on NHWC with the base build, the kernel AUTO
# runs there, for the same layers in the same call (mma.txt).
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
NOVA_FUSED_KERNEL=wgmma BUILDS="base va new" LAYERS="64,224,32 64,224,8 64,56,32" TRANSFORMS=f4x3_standard \
  LAYOUTS="NCHW-f NHWC-f" OUT=$out/r tools/device/ab_stages.sh >/dev/null
tools/device/ab_table.py "$out/r/ab.txt" | tee "$out/r/ab_table.txt"
NOVA_FUSED_KERNEL=mma BUILDS=base LAYERS="64,224,32 64,224,8 64,56,32" TRANSFORMS=f4x3_standard LAYOUTS="NHWC-f" \
  OUT=$out/r/mma tools/device/ab_stages.sh >/dev/null
sort "$out/r/mma/ab.txt" | tee "$out/r/mma.txt" && rm -rf "$out/r/mma"
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
