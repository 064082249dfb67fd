#!/usr/bin/env bash
# Third device call: the fp16-arithmetic input transform with the next patch loaded before the transform
# (new: the wgmma producers' later item, the mma.sync kernel two items ahead) against the committed
# kernels (base); both fused kernels forced, alternating, two runs. (In device2.sh's call the half2 build's
# archive unpacked over the staged one, so its "new" rows measured half2 alone.) $OUT/r.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
layers="64,224,32 64,224,8 64,56,32 128,112,32"
for kernel in wgmma mma; do
  NOVA_FUSED_KERNEL=$kernel LAYERS=$layers TRANSFORMS=f4x3_standard LAYOUTS="NCHW-f NHWC-f" \
    OUT=$out/r/$kernel tools/device/ab_stages.sh >/dev/null
  mv "$out/r/$kernel/ab.txt" "$out/r/ab3_$kernel.txt" && rm -rf "$out/r/$kernel"
  tools/device/ab_table.py "$out/r/ab3_$kernel.txt" >"$out/r/ab3_${kernel}_table.txt"
done
for kernel in wgmma mma; do echo "== $kernel forced"; cat "$out/r/ab3_${kernel}_table.txt"; done
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
