#!/usr/bin/env bash
# GPU check of every generated transform kernel (for the GPU machine; docs/design.md §9): builds
# tests/gpu/transform_kernels_gpu.cu with the committed generated/ kernels using nvcc alone (no
# Boost, GMP or Eigen), then runs it: each kernel against the CPU path on fresh random fp16 and
# fp32 data, one table row per kernel. Prints SKIP and exits 0 without a GPU.
# Usage: tools/device/check_transform_kernels.sh [BUILD_DIR]   (NOVA_CUDA_ARCH, default sm_90)
# The table is also written to $OUT/transform_kernels.md when OUT is set (the device tool's folder).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-gpu}
arch=${NOVA_CUDA_ARCH:-sm_90}
mkdir -p "$build"
rm -f "$build"/*_kernels.o  # objects of configs that no longer exist would only confuse
flags=(-std=c++20 -O3 -arch="$arch" -Werror all-warnings -Iruntime/kernels/include -Igenerated -Itests/gpu)

start=$(date +%s)
# One object per kernel file, in parallel.
ls generated/*_kernels.hip | xargs -P "$(nproc)" -I{} sh -c \
  'nvcc "$@" -x cu -c {} -o "'"$build"'/$(basename {} .hip).o"' _ "${flags[@]}"
nvcc "${flags[@]}" -DNOVA_GPU_KERNELS=1 tests/gpu/transform_kernels_gpu.cu generated/registry.cpp \
  "$build"/*_kernels.o -o "$build/check_transform_kernels"
echo "built $build/check_transform_kernels for $arch in $(( $(date +%s) - start )) s"

report=${OUT:+$OUT/transform_kernels.md}
"$build/check_transform_kernels" | tee ${report:+"$report"}
