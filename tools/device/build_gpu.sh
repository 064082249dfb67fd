#!/usr/bin/env bash
# Builds the CUDA flavour of the runtime and the GPU programs here (nvcc, sm_90) and stages them in
# .device/ (git-ignored) for the device tool to carry: .device/bin and .device/lib.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build-cuda
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNOVA_ENABLE_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DNOVA_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target nova-bench-conv "$@"
rm -rf .device && mkdir -p .device/bin .device/lib
cp "$build"/tools/device/nova-bench-conv .device/bin/
cp -P "$build"/runtime/libnova_runtime.so* .device/lib/
echo "staged: $(du -sh .device | cut -f1) in .device/"
