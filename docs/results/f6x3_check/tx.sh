#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device/stage.sh; use_stage build-cuda
out=${OUT:-/tmp/o}; mkdir -p $out
export LD_LIBRARY_PATH=$PWD/$stage/runtime:$PWD/$stage/jit
for L in 128,112,32 128,28,32 64,56,32; do
  for T in f6x3_fp16 f6x3_kappa_dyadic f4x3_standard; do
    d=$out/${T}-${L//,/_}; mkdir -p $d
    $stage/tools/device/nova-bench-conv $d --layer $L --transform $T > $d.log 2>&1 || echo FAIL $L $T
    echo "$L $T $(grep -E "^(ResNet|VGG)" $d.log | grep -E " NHWC-3 | NCHW-3 " | awk '{printf "%s %s g=%s cud=%s | ", $5, $6, $10, $11}')"
  done
done
