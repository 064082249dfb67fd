#!/usr/bin/env bash
# The session's last call, on the GPU machine from the repository root with .device/build-cuda.tar.xz
# and .device/build-cuda.path of the final build carried: the whole GPU suite (gpu_tests_final.txt,
# ../session27_final/device.sh with TESTS=1) and Nsight Compute's full set of the wgmma kernel forced
# on VGG-16 64@224 b32 NHWC (tools/device/ncu_ab.sh with BUILDS=new SOURCE=1: ncu_nhwc_64x224_v519_new.txt,
# _source_new.csv.gz, _roles_new.txt). Packs $OUT/r.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/o}
TESTS=1 docs/results/session27_final/device.sh | tail -3
mkdir -p "$out/final"
tar xzf "$out/r.tar.gz" -C "$out/final" && rm "$out/r.tar.gz"
NOVA_FUSED_KERNEL=wgmma BUILDS=new SOURCE=1 tools/device/ncu_ab.sh 64,224,32 f4x3_standard fused_wgmma_nhwc_f16_v0 \
  fused_wgmma_nhwc_f16_v0 "$out/final/ncu_nhwc_64x224_v519"
head -4 "$out/final/ncu_nhwc_64x224_v519_roles_new.txt"
tar czf "$out/r.tar.gz" -C "$out" final && rm -rf "${out:?}/final"
