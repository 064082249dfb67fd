#!/usr/bin/env bash
# One A/B call of wgmma kernel steps on the GPU machine, from the repository root, with
# .device/base.tar.xz (the committed build) and the staged builds carried (as .tar.xz, or as git deltas
# from base: tools/device/pack_ab.sh) with .device/build-cuda.path. Each results folder's README names
# its calls' environments and builds (first: docs/results/nhwc_wgmma/, fused v5.14).
#   - the builds alternating in each of two runs (BUILDS, default "base new"), the wgmma kernel forced on
#     both layouts at VGG-16 64@224 (batch 32 and 8) and ResNet-50 64@56 (batch 32), f4x3_standard:
#     ab$TAG.txt and ab${TAG}_table.txt;
#   - MMA=1: the mma.sync kernel (AUTO's on NHWC) forced on NHWC with the base build, the same layers:
#     mma$TAG.txt;
#   - GPU_TESTS=1 (first): the GPU tests that run the wgmma kernel, ctest -L gpu -R: gpu_tests$TAG.txt;
#   - NCU=NAME: Nsight Compute's full set and source page of the staged build's NHWC kernel at VGG-16
#     64@224 b32, summed by role (tools/device/ncu_ab.sh with BUILDS=new): ncu_nhwc_64x224_NAME_new*.
# Everything under $OUT is packed into $OUT/r.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/o}
tag=${TAG:?}
mkdir -p "$out/r"
if [ "${GPU_TESTS:-0}" = 1 ]; then
  ONLY="every path|wgmma_fused_kernel|loaded at run time" tools/device/run_gpu_tests.sh --log "$out/r/gpu_tests$tag.txt" | tail -3
fi
layers="64,224,32 64,224,8 64,56,32"
NOVA_FUSED_KERNEL=wgmma LAYERS=$layers TRANSFORMS=f4x3_standard LAYOUTS="NCHW-f NHWC-f" OUT=$out/r/ab \
  tools/device/ab_stages.sh >/dev/null
mv "$out/r/ab/ab.txt" "$out/r/ab$tag.txt" && rm -rf "$out/r/ab"
tools/device/ab_table.py "$out/r/ab$tag.txt" | tee "$out/r/ab${tag}_table.txt"
if [ "${MMA:-0}" = 1 ]; then
  NOVA_FUSED_KERNEL=mma BUILDS=base LAYERS=$layers TRANSFORMS=f4x3_standard LAYOUTS="NHWC-f" OUT=$out/r/mma \
    tools/device/ab_stages.sh >/dev/null
  sort "$out/r/mma/ab.txt" | tee "$out/r/mma$tag.txt" && rm -rf "$out/r/mma"
fi
if [ -n "${NCU:-}" ]; then
  NOVA_FUSED_KERNEL=wgmma BUILDS=new SOURCE=1 tools/device/ncu_ab.sh 64,224,32 f4x3_standard fused_wgmma_nhwc_f16_v0 \
    fused_wgmma_nhwc_f16_v0 "$out/r/ncu_nhwc_64x224_$NCU"
fi
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
