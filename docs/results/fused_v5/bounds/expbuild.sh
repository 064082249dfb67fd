#!/usr/bin/env bash
# Builds the bound experiments of docs/performance.md "Fused v5.4": with experiment.patch applied
# (git apply docs/results/fused_v5/bounds/experiment.patch), one build of the runtime and the bench
# per switch, f4x3_standard only, staged in .device/exp/<switch>/ for the device tool.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
build/codegen/nova-codegen configs/f4x3_standard.json --out /tmp/gen1
for v in BASE NO_U NO_X NO_PRODUCE NO_MMA NO_FOLD; do
  b=/tmp/exp-$v
  cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DNOVA_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90a \
    -DNOVA_GENERATED_DIR=/tmp/gen1 -DCMAKE_CUDA_FLAGS="-DNOVA_EXP_$v" >/dev/null
  cmake --build $b -j2 --target nova_runtime nova-bench-conv >$b.log 2>&1
  mkdir -p .device/exp/$v
  cp -P $b/runtime/libnova_runtime.so* $b/tools/device/nova-bench-conv .device/exp/$v/
done
# On the device (carry .device/exp), for each switch v and layer L in 64,224,32 and 64,56,32:
#   NOVA_FUSED_KERNEL=wgmma LD_LIBRARY_PATH=.device/exp/$v .device/exp/$v/nova-bench-conv DIR --layer $L
