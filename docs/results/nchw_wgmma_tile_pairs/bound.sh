#!/usr/bin/env bash
# The device call of the bound (bound_no_x.txt): the committed build's bench (.device/benchonly: its
# nova-bench-conv alone, which fits the device tool's 64 MiB beside two runtimes) with the committed
# runtime (.device/base) and the bound's (.device/bound: a build of bound_no_x.patch with
# -DCMAKE_CUDA_FLAGS=-DNOVA_BOUND_NO_X, runtime/ and jit/ only), two runs alternating, f4x3_standard,
# printing the forced fused rows of both layouts. Run from the repository root with the three
# archives carried.
cd "$(dirname "$0")/../../.."
cd .device && for a in base bound benchonly; do [ -d $a ] || tar xJf $a.tar.xz; done; cd ..
for run in 1 2; do
  for b in base bound; do
    for layer in 64,224,32 64,56,32 64,224,8; do
      d=/tmp/r/$b$run${layer//,/_}
      mkdir -p $d
      LD_LIBRARY_PATH=.device/$b/runtime:.device/$b/jit .device/benchonly/tools/device/nova-bench-conv $d --layer $layer \
        --transform f4x3_standard >$d.log 2>&1
      echo "$layer $b $run $(awk -F, '$5=="NCHW-f" || $5=="NHWC-f" {printf "%s %s  ", $5, $10}' $d/speed.csv)"
    done
  done
done | tee "${OUT:-/tmp/o}/bound.txt"
