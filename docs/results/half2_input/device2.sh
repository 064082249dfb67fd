#!/usr/bin/env bash
# Second device call: the fp16-arithmetic input transform alone (half2), with the next patch loaded before
# the transform (new: the wgmma producers' later item, the mma.sync kernel two items ahead) and the mma.sync
# kernel four items ahead (ahead4), against the committed kernels (base); both fused kernels forced,
# alternating, two runs; then the frontier (measured error against FP64) of base and new at ResNet-50
# 64@56 b32 with each kernel forced. Everything lands in $OUT/r.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
. tools/device/stage.sh
layers="64,224,32 64,224,8 64,56,32 128,112,32"
for kernel in wgmma mma; do
  builds="base half2 new"
  [ $kernel = mma ] && builds="base half2 new ahead4"
  NOVA_FUSED_KERNEL=$kernel BUILDS=$builds LAYERS=$layers TRANSFORMS=f4x3_standard LAYOUTS="NCHW-f NHWC-f" \
    OUT=$out/r/$kernel tools/device/ab_stages.sh >/dev/null
  mv "$out/r/$kernel/ab.txt" "$out/r/ab2_$kernel.txt" && rm -rf "$out/r/$kernel"
  tools/device/ab_table.py "$out/r/ab2_$kernel.txt" >"$out/r/ab2_${kernel}_table.txt"
done
use_stage build-cuda
for kernel in wgmma mma; do
  for build in base build-cuda; do
    mkdir -p "$out/r/frontier_${kernel}_$build"
    NOVA_FUSED_KERNEL=$kernel LD_LIBRARY_PATH=.device/$build/runtime:.device/$build/jit "$stage/tools/device/nova-bench-conv" \
      "$out/r/frontier_${kernel}_$build" --frontier --layer 64,56,32 >"$out/r/frontier_${kernel}_$build.log" 2>&1
  done
done
for kernel in wgmma mma; do echo "== $kernel forced"; cat "$out/r/ab2_${kernel}_table.txt"; done
for f in "$out"/r/frontier_*.log; do echo "== $f"; grep "standard" "$f" | grep fused; done
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
