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

build_and_stage() {  # build dir, extra cmake arguments...
  local build=$1
  shift
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNOVA_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90a \
    -DNOVA_WARNINGS_AS_ERRORS=ON "$@" >/dev/null
  cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
  local stage=.device/$(basename "$build")
  rm -rf "$stage" && mkdir -p "$stage/runtime" "$stage/jit" "$stage/tools/device" "$stage/tests/gpu"
  cp -P "$build"/runtime/libnova_runtime.so* "$stage/runtime/"
  cp -P "$build"/jit/libnova_jit.so* "$build"/jit/nova-jit "$stage/jit/"
  cp "$build/tools/device/nova-bench-conv" "$stage/tools/device/"
  cp -r "$build/pytorch/nova_torch" "$stage/"  # the package; NOVA_RUNTIME_LIBRARY names the carried library
  cp "$build"/tests/gpu/nova_runtime_gpu_tests "$build"/tests/gpu/nova_transform_kernels_gpu "$build"/tests/gpu/*.cmake \
    "$stage/tests/gpu/"
  echo 'subdirs("tests/gpu")' >"$stage/CTestTestfile.cmake"  # the GPU tests only
  # Symbol tables are of no use there, and the device tool carries at most 64 MiB with the tree.
  strip --strip-unneeded "$stage"/runtime/libnova_runtime.so* "$stage"/jit/libnova_jit.so* "$stage"/jit/nova-jit \
    "$stage"/tools/device/nova-bench-conv "$stage"/tests/gpu/nova_runtime_gpu_tests "$stage"/tests/gpu/nova_transform_kernels_gpu
  realpath "$build" >"$stage.path"
  # The same as one archive, for the device tool's 64 MiB (tools/device/stage.sh unpacks it there).
  XZ_OPT=-T0 tar cJf "$stage.tar.xz" -C .device "$(basename "$stage")"
  echo "staged $(du -sh "$stage" | cut -f1) in $stage, $(du -sh "$stage.tar.xz" | cut -f1) as $stage.tar.xz"
}

build_and_stage build-cuda
if [ "${1:-}" = --broken-kernel ]; then
  broken=build-cuda-broken.generated
  rm -rf "$broken" && cp -r generated "$broken"
  sed -i '0,/y\[y_stride\] = even_1_2 + odd_1_2;/s//y[y_stride] = even_1_2 - odd_1_2;/' "$broken/f4x3_standard_transforms.hpp"
  grep -q 'y\[y_stride\] = even_1_2 - odd_1_2;' "$broken/f4x3_standard_transforms.hpp" || { echo "the sign to flip moved" >&2; exit 1; }
  build_and_stage build-cuda-broken -DNOVA_GENERATED_DIR="$PWD/$broken"
fi
