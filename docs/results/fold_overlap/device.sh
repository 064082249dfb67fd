#!/usr/bin/env bash
# The wgmma kernel's fold of domain row i - 1 while row i's first products run (v5.6) against the
# committed build, on the GPU machine from the repository root, with .device/base.tar.xz,
# .device/build-cuda.tar.xz and .device/build-cuda.path carried:
#   - the SASS of the F(4,3) NCHW fp16 wgmma kernel (16 tiles) in both builds (cuobjdump), counted: HGMMA, the
#     waits on them (WARPGROUP.DEPBAR), WARPGROUP.ARRIVE, all instructions; ptxas reported C7511
#     (products serialised) for the new build's f4x3_standard kernels (not for f4x3_fp16's), and this
#     says whether and where;
#   - the GPU tests of the new build;
#   - the A/B (two runs, the builds alternating) of the wgmma layers: NCHW-f and AUTO NCHW, and the
#     NHWC-f rows with the wgmma kernel forced (NOVA_FUSED_KERNEL=wgmma);
#   - with MMA=1, the mma.sync kernel forced on the same NCHW layers at batches 32, 8 and 1 (committed
#     build).
#   - with NCU=1, Nsight Compute of that kernel at VGG-16 64@224 b32 in both builds (ncu_ab.sh).
# Environment: LAYERS (default "64,224,32 64,56,32 64,224,8"), MMA, NCU, NHWC (0: no wgmma NHWC rows).
# Everything under $OUT is packed into $OUT/fold.tar.gz (the device tool returns 8 files).
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/fold"
. tools/device/stage.sh
use_stage build-cuda
use_base
for transform in f4x3_standard f4x3_fp16; do for build in base new; do
  root=.device/base
  [ $build = new ] && root=$stage
  f=$out/fold/sass_${transform}_$build.txt
  cuobjdump -sass -fun "nova_${transform}_fused_wgmma_nchw_f16_v0" "$root"/runtime/libnova_runtime.so >"$f" 2>&1
  echo "$transform $build: HGMMA $(grep -c 'HGMMA' "$f") DEPBAR $(grep -c 'WARPGROUP.DEPBAR' "$f") ARRIVE $(grep -c 'WARPGROUP.ARRIVE' "$f") instructions $(grep -cE '^ +/\*[0-9a-f]{4,}\*/' "$f")" |
    tee -a "$out/fold/sass_counts.txt"
  { echo "## $transform $build: the first 24 HGMMA and waits"; grep -E "HGMMA|WARPGROUP.DEPBAR" "$f" | head -24; } >>"$out/fold/sass_excerpt.txt"
  rm "$f"
done; done
tools/device/run_gpu_tests.sh --log "$out/fold/gpu_tests.txt" | tail -3
LAYERS=${LAYERS:-"64,224,32 64,56,32 64,224,8"} TRANSFORMS="f4x3_standard f4x3_fp16" LAYOUTS="NCHW-f NCHW" OUT=$out/fold \
  tools/device/ab_stages.sh >/dev/null
[ "${NHWC:-1}" = 1 ] && mkdir -p "$out/fold/wgmma_nhwc" && NOVA_FUSED_KERNEL=wgmma LAYERS="64,224,32 64,56,32" TRANSFORMS=f4x3_standard LAYOUTS="NHWC-f" \
  OUT=$out/fold/wgmma_nhwc tools/device/ab_stages.sh >/dev/null
# With MMA=1, the mma.sync kernel on the same NCHW layers (committed build): is the wgmma kernel still the
# faster there?
[ "${MMA:-0}" = 1 ] && for layer in 64,224,32 64,56,32 64,224,8 64,56,8 64,224,1 64,56,1; do
  d=/tmp/mma/${layer//,/_}
  mkdir -p "$d"
  NOVA_FUSED_KERNEL=mma LD_LIBRARY_PATH=.device/base/runtime:.device/base/jit $stage/tools/device/nova-bench-conv "$d" \
    --layer "$layer" --transform f4x3_standard >"$d.log" 2>&1
  echo "$layer mma.sync NCHW-f $(awk -F, '$5 == "NCHW-f" { print $10; exit }' "$d/speed.csv")" | tee -a "$out/fold/mma_nchw.txt"
done
tools/device/ab_table.py "$out/fold/ab.txt"
[ "${NHWC:-1}" = 1 ] && tools/device/ab_table.py "$out/fold/wgmma_nhwc/ab.txt"
[ "${NCU:-0}" = 1 ] && tools/device/ncu_ab.sh 64,224,32 f4x3_standard fused_wgmma_nchw_f16_v0 fused_wgmma_nchw_f16_v0 \
  "$out/fold/ncu_64x224"
cat "$out/fold/sass_counts.txt"
tar czf "$out/fold.tar.gz" -C "$out" fold && rm -rf "${out:?}/fold"
