#!/usr/bin/env bash
# Builds the phase-bound experiments of docs/performance.md "Where the mma.sync kernel's time goes":
# with experiment.patch applied to commit 1e6d2fe (git apply docs/results/phase_bounds/experiment.patch), one build of
# the runtime and the bench per switch, f4x3_standard only, staged in .device/exp/<switch>/ for the
# device tool. Usage: expbuild.sh BASE NO_XFORM NO_LOAD NO_PHASE1 NO_FOLD NO_EPILOGUE P1_ONLY \
#   "P1_ONLY -DNOVA_EXP_NO_EPILOGUE" STAGGER_NS=4000 STAGE
# On the device, for each switch v and layer L (e.g. 64,224,32):
#   LD_LIBRARY_PATH=.device/exp/$v .device/exp/$v/nova-bench-conv DIR --layer $L --transform f4x3_standard
# and read the NHWC-f row of DIR/speed.csv (bounds.log).
set -euo pipefail
cd "$(dirname "$0")/../../.."
build/codegen/nova-codegen configs/f4x3_standard.json --out /tmp/gen1
for v in "$@"; do
  name=${v/=/_}
  name=${name// -DNOVA_EXP_/+}
  b=/tmp/exp-$name
  cmake -S . -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNOVA_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90a \
    -DNOVA_GENERATED_DIR=/tmp/gen1 -DCMAKE_CUDA_FLAGS="-DNOVA_EXP_$v" >/dev/null
  cmake --build "$b" -j2 --target nova_runtime nova-bench-conv >"$b.log" 2>&1
  rm -rf ".device/exp/$name" && mkdir -p ".device/exp/$name"
  cp -P "$b"/runtime/libnova_runtime.so* "$b/tools/device/nova-bench-conv" ".device/exp/$name/"
  strip --strip-unneeded ".device/exp/$name"/*
done
