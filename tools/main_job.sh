#!/usr/bin/env bash
# The main job end to end on a fresh machine: set up, build the tools, discover (evaluate) the
# paper's F(6,3) points exactly, generate code from that JSON, build the runtime from the freshly
# generated code, and run a convolution through it against the FP64 reference, then a torchvision
# ResNet-18 through the same library from PyTorch (nova_torch, CPU). Last, discover a transform no
# library here was built with (F(5,3) for fp16) and load it into an already-built runtime at run time
# (libnova_jit): verified, generated, compiled for sm_90a by NVRTC where the CUDA toolkit is, and run.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
build=${NOVA_BUILD_DIR:-build}
out=$build/main-job
rm -rf "$out" && mkdir -p "$out" && out=$(realpath "$out")
jobs=$(nproc)

echo "== build: nova-discover, nova-codegen, nova-jit (and the runtime from the committed generated/)"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNOVA_WARNINGS_AS_ERRORS=ON \
  -DNOVA_GENERATED_DIR="$PWD/generated" >/dev/null
cmake --build "$build" -j "$jobs" --target nova-discover nova-codegen nova-jit

echo "== discover: F(6,3) with the paper's points; exact 1D and 2D verification, metrics, JSON"
"$build/discover/nova-discover" --tile 6,3 --points 0,3/5,-3/5,1,-1,7/6,-7/6 --name nova --verify-2d \
  --out "$out/configs/f6x3_nova.json"

echo "== codegen: unrolled transforms, kernels and registry from that JSON"
"$build/codegen/nova-codegen" "$out/configs/f6x3_nova.json" --out "$out/generated" --stats

echo "== build: libnova_runtime alone (Eigen only) from the generated code, and the example program"
cmake -S . -B "$out/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNOVA_BUILD_TOOLS=OFF \
  -DNOVA_GENERATED_DIR="$out/generated" >/dev/null
cmake --build "$out/build" -j "$jobs" --target nova_conv_example

echo "== run: a 3x3 convolution through the runtime (CPU path) against FP64 direct convolution"
"$out/build/runtime/examples/conv_example/nova_conv_example" f6x3_nova

echo "== run: torchvision ResNet-18 with every eligible Conv2d swapped for NOVA's (nova_torch, CPU)"
PYTHONPATH="$out/build/pytorch" /usr/bin/python3 pytorch/examples/resnet_surgery.py cpu f6x3_nova

echo "== discover: F(5,3) for fp16, a transform the runtime was not built with"
"$build/discover/nova-discover" --tile 5,3 --objective fp16 --out "$out/configs/f5x3_fp16.json"

echo "== load it into the built runtime (no rebuild): verify, generate, register; run against FP64"
arch=()
if [ -e /usr/local/cuda/include/nvrtc.h ] && { ldconfig -p | grep -q libnvrtc.so.13 || [ -e /usr/local/cuda/lib64/libnvrtc.so.13 ]; }; then
  arch=(--arch sm_90a)  # the CUDA toolkit is here: compile its GPU kernels with NVRTC too (no GPU needed)
fi
NOVA_CACHE_DIR="$out/cache" "$build/jit/nova-jit" "$out/configs/f5x3_fp16.json" --run "${arch[@]}"
