#!/usr/bin/env bash
# A/B of a change to the NCHW wgmma kernel (the committed build, .device/base, against the staged one,
# .device/build-cuda), on the GPU machine from the repository root, with .device/base.tar.xz,
# .device/build-cuda.tar.xz and .device/build-cuda.path carried:
#   - the GPU tests of the new build;
#   - the A/B (tools/device/ab_stages.sh, two runs, the builds alternating) of the layers AUTO runs on
#     the NCHW wgmma kernel: NCHW-f and AUTO NCHW, f4x3_standard and f4x3_fp16; and, as the drift
#     control, the NHWC wgmma kernel forced at VGG-16 64@224;
#   - the other readers of NCHW patch runs (walk_patch_runs): the 3-pass input of a tile a thread and the
#     chunked mma.sync kernel, NCHW-3 and NCHW-f at CONTROL_LAYERS (default "128,28,32 512,28,32");
#   - Nsight Compute's full set of the NCHW f4x3_standard kernel at VGG-16 64@224 b32 in both builds, its
#     source page summed by role (tools/device/ncu_ab.sh with SOURCE=1).
# Environment: LAYERS (default "64,224,32 64,56,32 64,224,8"), READERS (default 1), CONTROL_LAYERS, NCU
# (default 1).
# Everything under $OUT is packed into $OUT/r.tar.gz (the device tool returns 8 files).
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r/nhwc_control"
tools/device/run_gpu_tests.sh --log "$out/r/gpu_tests.txt" | tail -3
LAYERS=${LAYERS:-"64,224,32 64,56,32 64,224,8"} TRANSFORMS="f4x3_standard f4x3_fp16" LAYOUTS="NCHW-f NCHW" OUT=$out/r \
  tools/device/ab_stages.sh >/dev/null
[ "${READERS:-1}" = 1 ] && mkdir -p "$out/r/readers" && LAYERS=${CONTROL_LAYERS:-"128,28,32 512,28,32"} \
  TRANSFORMS=f4x3_standard LAYOUTS="NCHW-3 NCHW-f" OUT=$out/r/readers tools/device/ab_stages.sh >/dev/null
NOVA_FUSED_KERNEL=wgmma LAYERS=64,224,32 TRANSFORMS=f4x3_standard LAYOUTS=NHWC-f OUT=$out/r/nhwc_control \
  tools/device/ab_stages.sh >/dev/null
[ "${NCU:-1}" = 1 ] && SOURCE=1 tools/device/ncu_ab.sh 64,224,32 f4x3_standard fused_wgmma_nchw_f16_v0 \
  fused_wgmma_nchw_f16_v0 "$out/r/ncu_64x224"
tools/device/ab_table.py "$out/r/ab.txt" | tee "$out/r/ab_table.txt"
[ "${READERS:-1}" = 1 ] && tools/device/ab_table.py "$out/r/readers/ab.txt" | tee "$out/r/readers/ab_table.txt"
tools/device/ab_table.py "$out/r/nhwc_control/ab.txt" | tee "$out/r/nhwc_control/ab_table.txt"
for b in base new; do head -4 "$out/r/ncu_64x224_roles_$b.txt" 2>/dev/null; grep -A2 "producers:" "$out/r/ncu_64x224_roles_$b.txt" 2>/dev/null; done
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
