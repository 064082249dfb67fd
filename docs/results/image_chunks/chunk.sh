#!/usr/bin/env bash
# 3-pass in image chunks (NOVA_IMAGE_CHUNK), forced 3-pass rows, graph us
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device/stage.sh; use_stage build-cuda
out=${OUT:-/tmp/o}; mkdir -p $out
export LD_LIBRARY_PATH=$PWD/$stage/runtime:$PWD/$stage/jit
for L in ${LAYERS:-128,112,32 64,224,32 256,56,32 512,28,32}; do
  for CH in ${CHUNKS:-0 1 2 4 8}; do
    d=$out/c${CH}-${L//,/_}; mkdir -p $d
    NOVA_IMAGE_CHUNK=$CH $stage/tools/device/nova-bench-conv $d --layer $L > $d.log 2>&1 || echo FAIL $L $CH
    echo "chunk $CH $(grep -E "^(ResNet|VGG)" $d.log | grep -E " NHWC-3 | NCHW-3 | NHWC | NCHW " | awk '{printf "%s %s %s g=%s cud=%s | ", $5, $6, $7, $10, $11}')"
  done
done
