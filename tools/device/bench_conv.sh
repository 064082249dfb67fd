#!/usr/bin/env bash
# Runs on the GPU machine (device tool), from the repository root, with .device/ carried:
#   tools/device/build_gpu.sh                      # here: build with nvcc, stage into .device/
#   run: tools/device/bench_conv.sh [--quick]      # there: correctness, then speed vs cuDNN
# Prints the tables last; CSV files go to $OUT (or ./bench-out).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-bench-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader || true
LD_LIBRARY_PATH=".device/lib:${LD_LIBRARY_PATH:-}" .device/bin/nova-bench-conv "$out" "$@" 2>&1 | tee "$out/bench_conv.log"
