#!/usr/bin/env bash
# One device call: the fp16-arithmetic input transform (new) against the committed kernels (base), both
# small builds (tools/device/build_small.sh), both fused kernels forced, alternating, two runs; then the
# speed/accuracy frontier (measured error against FP64) of both builds at ResNet-50 64@56 b32 with each
# kernel forced. Everything lands in $OUT/r.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
. tools/device/stage.sh
layers="64,224,32 64,224,8 64,56,32 128,112,32"
for kernel in wgmma mma; do
  NOVA_FUSED_KERNEL=$kernel LAYERS=$layers TRANSFORMS=f4x3_standard LAYOUTS="NCHW-f NHWC-f" OUT=$out/r/$kernel \
    tools/device/ab_stages.sh >/dev/null
  mv "$out/r/$kernel/ab.txt" "$out/r/ab_$kernel.txt" && rm -rf "$out/r/$kernel"
  tools/device/ab_table.py "$out/r/ab_$kernel.txt" >"$out/r/ab_${kernel}_table.txt"
done
use_stage build-cuda
for kernel in wgmma mma; do
  for build in base build-cuda; do
    NOVA_FUSED_KERNEL=$kernel LD_LIBRARY_PATH=.device/$build/runtime:.device/$build/jit "$stage/tools/device/nova-bench-conv" \
      "$out/r/frontier_${kernel}_$build" --frontier --layer 64,56,32 >"$out/r/frontier_${kernel}_$build.log" 2>&1
  done
done
for kernel in wgmma mma; do echo "== $kernel forced"; cat "$out/r/ab_${kernel}_table.txt"; done
grep -h "fused\|cudnn" "$out"/r/frontier_*_*.log | head -40
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
