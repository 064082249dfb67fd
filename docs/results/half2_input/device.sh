#!/usr/bin/env bash
# One device call of the fp16-input-arithmetic A/B (README.md lists the five calls and their environments):
# the staged build (new) against the committed kernels (base), each fused kernel forced in turn, alternating,
# two runs (tools/device/ab_stages.sh): ab${TAG}_wgmma*.txt, ab${TAG}_mma*.txt; with FRONTIER=1 also the
# frontier (time and error sampled against FP64) of base and new at ResNet-50 64@56 b32 with each kernel
# forced: frontier${TAG}_KERNEL_BUILD.log and .csv. Everything lands in $OUT/r.tar.gz.
# Environment: TAG (required), TRANSFORMS (default f4x3_standard), LAYOUTS (default "NCHW-f NHWC-f"),
# WGMMA_BUILDS and MMA_BUILDS (default "base new"; further names are further staged builds), FRONTIER.
set -uo pipefail
out=${OUT:-/tmp/o}
tag=${TAG:?}
mkdir -p "$out/r"
. tools/device/stage.sh
layers="64,224,32 64,224,8 64,56,32 128,112,32"
for kernel in wgmma mma; do
  builds=${WGMMA_BUILDS:-base new}
  [ $kernel = mma ] && builds=${MMA_BUILDS:-base new}
  NOVA_FUSED_KERNEL=$kernel BUILDS=$builds LAYERS=$layers TRANSFORMS=${TRANSFORMS:-f4x3_standard} \
    LAYOUTS=${LAYOUTS:-NCHW-f NHWC-f} OUT=$out/r/$kernel tools/device/ab_stages.sh >/dev/null
  mv "$out/r/$kernel/ab.txt" "$out/r/ab${tag}_$kernel.txt" && rm -rf "$out/r/$kernel"
  tools/device/ab_table.py "$out/r/ab${tag}_$kernel.txt" >"$out/r/ab${tag}_${kernel}_table.txt"
done
if [ "${FRONTIER:-0}" = 1 ]; then
  use_stage build-cuda
  for kernel in wgmma mma; do
    for build in base build-cuda; do
      f=$out/r/frontier${tag}_${kernel}_$build
      mkdir -p "$f.d"
      NOVA_FUSED_KERNEL=$kernel LD_LIBRARY_PATH=.device/$build/runtime:.device/$build/jit "$stage/tools/device/nova-bench-conv" \
        "$f.d" --frontier --layer 64,56,32 >"$f.log" 2>&1
      mv "$f.d/frontier.csv" "$f.csv" && rm -rf "$f.d"
    done
  done
fi
for kernel in wgmma mma; do echo "== $kernel forced"; cat "$out/r/ab${tag}_${kernel}_table.txt"; done
for f in "$out"/r/frontier*.log; do [ -f "$f" ] && { echo "== $f"; grep "fused\|cudnn" "$f"; }; done
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
