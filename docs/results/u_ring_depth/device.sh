#!/usr/bin/env bash
# Fused v5.12 (the wgmma kernel's U ring as deep as the shared memory allows) on the GPU machine, from
# the repository root, with .device/base.tar.xz (the committed build), .device/build-cuda.tar.xz and
# .device/build-cuda.path carried:
#   - the GPU tests of the new build;
#   - the A/B (tools/device/ab_stages.sh, two runs, the builds alternating) of the wgmma kernel forced
#     (NOVA_FUSED_KERNEL=wgmma) on both layouts at LAYERS: NCHW at C = 64 gets 4 stages, NHWC 3 (the
#     control);
#   - with NCU=1, Nsight Compute's full set of the NCHW f4x3_standard kernel at VGG-16 64@224 b32 in both
#     builds, its source page summed by role (tools/device/ncu_ab.sh with SOURCE=1).
# Environment: LAYERS (default "64,224,32 64,56,32 64,224,8"), TESTS (default 1), NCU (default 0).
# Everything under $OUT is packed into $OUT/r.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
[ "${TESTS:-1}" = 1 ] && tools/device/run_gpu_tests.sh --log "$out/r/gpu_tests.txt" | tail -3
NOVA_FUSED_KERNEL=wgmma LAYERS=${LAYERS:-"64,224,32 64,56,32 64,224,8"} TRANSFORMS="f4x3_standard f4x3_fp16" \
  LAYOUTS="NCHW-f NHWC-f" OUT=$out/r tools/device/ab_stages.sh >/dev/null
[ "${NCU:-0}" = 1 ] && SOURCE=1 tools/device/ncu_ab.sh 64,224,32 f4x3_standard fused_wgmma_nchw_f16_v0 \
  fused_wgmma_nchw_f16_v0 "$out/r/ncu_64x224"
tools/device/ab_table.py "$out/r/ab.txt" | tee "$out/r/ab_table.txt"
for b in base new; do head -4 "$out/r/ncu_64x224_roles_$b.txt" 2>/dev/null; grep -A2 "producers:" "$out/r/ncu_64x224_roles_$b.txt" 2>/dev/null; done
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
