#!/usr/bin/env bash
# Fused v5.14, the later patch's loads after the first item's stores, on the GPU machine, from the repository root, with .device/base.tar.xz and
# .device/build-cuda.patch.xz (tools/device/pack_ab.sh build-cuda; base: fused v5.13) and
# .device/build-cuda.path carried (the whole GPU suite of this build: ../session25_final/). The
# staged build: fused v5.14 as in device_ab7.sh (tile rows stored by the copy engine, a lane a row),
# but the producers' later item's patch loaded after the first item's stores: loaded between its two
# channel transforms (device_ab4.sh and device_ab7.sh), four transforms' NHWC kernels spilled 4 to 28
# bytes (f4x3_kappa, _kappa_dyadic, _nova, _nova_dyadic); here none does.
#   - the two builds alternating in each of two runs, the wgmma kernel forced on both layouts at VGG-16
#     64@224 (batch 32 and 8) and ResNet-50 64@56 (batch 32), f4x3_standard (ab8*);
#   - the mma.sync kernel forced on NHWC with the base build, the same layers (mma8.txt);
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
NOVA_FUSED_KERNEL=wgmma LAYERS="64,224,32 64,224,8 64,56,32" TRANSFORMS=f4x3_standard \
  LAYOUTS="NCHW-f NHWC-f" OUT=$out/r tools/device/ab_stages.sh >/dev/null
mv "$out/r/ab.txt" "$out/r/ab8.txt"
tools/device/ab_table.py "$out/r/ab8.txt" | tee "$out/r/ab8_table.txt"
NOVA_FUSED_KERNEL=mma BUILDS=base LAYERS="64,224,32 64,224,8 64,56,32" TRANSFORMS=f4x3_standard LAYOUTS="NHWC-f" \
  OUT=$out/r/mma tools/device/ab_stages.sh >/dev/null
sort "$out/r/mma/ab.txt" >"$out/r/mma8.txt" && rm -rf "$out/r/mma"
cat "$out/r/mma8.txt"
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
