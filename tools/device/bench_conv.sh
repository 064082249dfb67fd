#!/usr/bin/env bash
# Runs on the GPU machine (device tool), from the repository root, with .device/ carried:
#   tools/device/build_gpu.sh                      # here: build with nvcc, stage into .device/
#   run: tools/device/bench_conv.sh [--quick]      # there: speed against cuDNN, and the stage table
# Correctness is `ctest -L gpu` (tools/device/run_gpu_tests.sh). Prints the tables last; CSV files go
# to $OUT (or ./bench-out); tools/device/bench_tables.py turns them into docs/runtime.md's tables.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-bench-out}
. tools/device/stage.sh
use_stage build-cuda
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader || true
LD_LIBRARY_PATH="$stage/runtime:${LD_LIBRARY_PATH:-}" "$stage/tools/device/nova-bench-conv" "$out" "$@" 2>&1 |
  tee "$out/bench_conv.log"
