#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device/stage.sh; use_stage build-cuda
out=${OUT:-/tmp/o}; mkdir -p $out
export LD_LIBRARY_PATH=$PWD/$stage/runtime:$PWD/$stage/jit
cuobjdump -sass -fun nova_f2x3_standard_fused_wgmma_nhwc_f16_v2 $stage/runtime/libnova_runtime.so > $out/resident.sass 2>&1
echo "sass lines $(wc -l < $out/resident.sass) STL $(grep -c STL $out/resident.sass) LDL $(grep -c LDL $out/resident.sass) HGMMA $(grep -c HGMMA $out/resident.sass) DEPBAR $(grep -c DEPBAR $out/resident.sass)"
( cd $stage/tests/gpu && NOVA_FUSED_KERNEL=wgmma timeout 300 ./nova_runtime_gpu_tests "every path*" 2>&1 | tail -3 )
for L in 64,224,32 64,56,32 64,224,8 64,224,1; do
  d=$out/new-${L//,/_}; mkdir -p $d
  $stage/tools/device/nova-bench-conv $d --layer $L --transform f2x3_standard > $d.log 2>&1 || echo FAIL $L
  grep -E "^(ResNet|VGG)" $d.log | grep -E " NHWC-f | NCHW-f " | head -2
done
