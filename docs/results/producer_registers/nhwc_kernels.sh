#!/usr/bin/env bash
# The wgmma kernel (v5.20) against the mma.sync kernel (AUTO's on NHWC images) on NHWC shapes whose tile
# groups are 16 (C <= 64 at F(4,3)), both forced, the staged build alone, two runs each: nhwc_kernels.txt
# (the ab_stages.sh lines) and nhwc_kernels_table.txt (each row's mean time per kernel and wgmma / mma.sync).
# (The call also asked for 32,112,32 and 16,224,8, which are not bench layers: --layer selected nothing.)
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
for kernel in wgmma mma; do
  NOVA_FUSED_KERNEL=$kernel BUILDS=new LAYERS="64,224,1 64,224,8 64,56,1 64,56,8" \
    TRANSFORMS="f4x3_standard f2x3_standard" LAYOUTS=NHWC-f OUT=$out/r/$kernel tools/device/ab_stages.sh >/dev/null
  sed "s/ new / $kernel /" "$out/r/$kernel/ab.txt" >>"$out/r/nhwc_kernels.txt" && rm -rf "$out/r/$kernel"
done
awk '{ key = $1 " " $2; t[key, $4] += $7; n[key, $4]++; keys[key] }
  END { for (k in keys) if (n[k, "wgmma"] && n[k, "mma"]) {
          w = t[k, "wgmma"] / n[k, "wgmma"]; m = t[k, "mma"] / n[k, "mma"]
          printf "%-30s wgmma %8.1f  mma.sync %8.1f  %.3f\n", k, w, m, w / m } }' "$out/r/nhwc_kernels.txt" |
  sort | tee "$out/r/nhwc_kernels_table.txt"
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
