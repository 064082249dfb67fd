#!/usr/bin/env bash
# What the fifty-first session ran on the H200 (device runs from the repository root, with
# .device/build-cuda.tar.xz and .device/build-cuda.path of b2ad838 carried; tools/device/build_gpu.sh made them):
# the GPU tests, two fresh random sets with AUTO, the bench, then the training data of fit.sh.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/auto"
tools/device/run_gpu_tests.sh --log "$out/gpu_tests.txt"
SEEDS=277 RANDOM_C=64 OUT=$out/auto tools/device/auto_random.sh
SEEDS=278 OUT=$out/auto tools/device/auto_random.sh
OUT=$out/bench tools/device/bench_conv.sh
BATCHES="32 8 1" TC_SEEDS="279 280" SEEDS="281 282" BUDGET=330 OUT=$out tools/device/cost_model_data.sh
