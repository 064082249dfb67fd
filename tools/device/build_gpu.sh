#!/usr/bin/env bash
# Builds the CUDA flavour here (nvcc, sm_90a) and stages what the GPU machine runs in .device/
# (git-ignored; the device tool carries it): the runtime, the bench, the GPU tests with their
# ctest files and the nova_torch package, as .device/build-cuda/ and packed as .device/build-cuda.tar.xz
# (carry the archive and .device/build-cuda.path where the folder and the tree pass the device tool's
# 64 MiB; tools/device/stage.sh unpacks it), and in .device/build-cuda.path the absolute path the build
# tree had (its ctest files name it; tools/device/run_gpu_tests.sh maps it there).
# --broken-kernel also builds the same against a copy of generated/ whose f4x3_standard input
# transform has one sign flipped, staged as .device/build-cuda-broken: the test of the tests
# (ctest -L gpu must fail there).
# Usage: tools/device/build_gpu.sh [--broken-kernel]
set -euo pipefail
cd "$(dirname "$0")/../.."
targets=(nova_runtime nova_jit nova-jit nova-bench-conv nova_runtime_gpu_tests nova_transform_kernels_gpu)

. tools/device/build_stage.sh
build_and_stage . build-cuda build-cuda
if [ "${1:-}" = --broken-kernel ]; then
  broken=build-cuda-broken.generated
  rm -rf "$broken" && cp -r generated "$broken"
  sed -i '0,/y\[y_stride\] = even_1_2 + odd_1_2;/s//y[y_stride] = even_1_2 - odd_1_2;/' "$broken/f4x3_standard_transforms.hpp"
  grep -q 'y\[y_stride\] = even_1_2 - odd_1_2;' "$broken/f4x3_standard_transforms.hpp" || { echo "the sign to flip moved" >&2; exit 1; }
  build_and_stage . build-cuda-broken build-cuda-broken -DNOVA_GENERATED_DIR="$PWD/$broken"
fi
