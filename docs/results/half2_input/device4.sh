#!/usr/bin/env bash
# Fourth device call: builds of four transforms (CONFIGS="f4x3_standard f2x3_standard f4x3_fp16_dyadic
# f4x3_nova_dyadic" tools/device/build_small.sh), the fp16-arithmetic input transform with the next patch
# loaded ahead (new) against the committed kernels (base), both fused kernels forced, alternating, two
# runs, F(4,3) standard and the two dyadic ones; then the frontier (measured error against FP64) of both
# builds at ResNet-50 64@56 b32 with each kernel forced. Everything lands in $OUT/r.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
. tools/device/stage.sh
layers="64,224,32 64,224,8 64,56,32 128,112,32"
for kernel in wgmma mma; do
  NOVA_FUSED_KERNEL=$kernel LAYERS=$layers TRANSFORMS="f4x3_standard f4x3_fp16_dyadic f4x3_nova_dyadic" LAYOUTS="NHWC-f" \
    OUT=$out/r/$kernel tools/device/ab_stages.sh >/dev/null
  mv "$out/r/$kernel/ab.txt" "$out/r/ab4_$kernel.txt" && rm -rf "$out/r/$kernel"
  tools/device/ab_table.py "$out/r/ab4_$kernel.txt" >"$out/r/ab4_${kernel}_table.txt"
done
use_stage build-cuda
for kernel in wgmma mma; do
  for build in base build-cuda; do
    mkdir -p "$out/r/frontier_${kernel}_$build"
    NOVA_FUSED_KERNEL=$kernel LD_LIBRARY_PATH=.device/$build/runtime:.device/$build/jit "$stage/tools/device/nova-bench-conv" \
      "$out/r/frontier_${kernel}_$build" --frontier --layer 64,56,32 >"$out/r/frontier_${kernel}_$build.log" 2>&1
  done
done
for kernel in wgmma mma; do echo "== $kernel forced"; cat "$out/r/ab4_${kernel}_table.txt"; done
for f in "$out"/r/frontier_*.log; do echo "== $f"; grep "NHWC" "$f" | grep "fused\|cudnn"; done
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
