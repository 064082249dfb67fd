#!/usr/bin/env bash
# Fused v5.11 (the wgmma kernel's blocks in clusters that share U stages) on the GPU machine, from the
# repository root, with .device/base.tar.xz (the committed build), .device/build-cuda.tar.xz and
# .device/build-cuda.path carried:
#   - the GPU tests of the new build (its default cluster of 2);
#   - the A/B (tools/device/ab_stages.sh, two runs, the builds alternating) of the wgmma kernel forced
#     (NOVA_FUSED_KERNEL=wgmma) on both layouts at LAYERS, with clusters of 2 (cluster2/) and, one run
#     of f4x3_standard, of 4 (cluster4/); the committed build has no clusters.
# Environment: LAYERS (default "64,224,32 64,56,32 64,224,8 128,112,32"), TESTS, CLUSTER2, CLUSTER4 (each
# default 1: 0 leaves that part out).
# Everything under $OUT is packed into $OUT/r.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r/cluster2" "$out/r/cluster4"
[ "${TESTS:-1}" = 1 ] && tools/device/run_gpu_tests.sh --log "$out/r/gpu_tests.txt" | tail -3
layers=${LAYERS:-"64,224,32 64,56,32 64,224,8 128,112,32"}
[ "${CLUSTER2:-1}" = 1 ] && NOVA_FUSED_KERNEL=wgmma NOVA_WGMMA_CLUSTER=2 LAYERS=$layers TRANSFORMS="f4x3_standard f4x3_fp16" \
  LAYOUTS="NCHW-f NHWC-f" OUT=$out/r/cluster2 tools/device/ab_stages.sh >/dev/null
[ "${CLUSTER4:-1}" = 1 ] && NOVA_FUSED_KERNEL=wgmma NOVA_WGMMA_CLUSTER=4 LAYERS=$layers TRANSFORMS=f4x3_standard RUNS=1 \
  LAYOUTS="NCHW-f NHWC-f" OUT=$out/r/cluster4 tools/device/ab_stages.sh >/dev/null
for c in cluster2 cluster4; do
  [ -f "$out/r/$c/ab.txt" ] || continue
  echo "== $c"
  tools/device/ab_table.py "$out/r/$c/ab.txt" | tee "$out/r/$c/ab_table.txt"
done
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
