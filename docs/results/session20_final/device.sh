#!/usr/bin/env bash
# The twentieth session's final build on the GPU machine, from the repository root, with
# .device/build-cuda.tar.xz and .device/build-cuda.path carried: its GPU tests, then the full fp16 speed
# table (batches 1, 8 and 32, both layouts; tools/device/bench_conv.sh).
set -uo pipefail
out=${OUT:-/tmp/o}
tools/device/run_gpu_tests.sh --log "$out/gpu_tests.txt"
OUT=$out/full tools/device/bench_conv.sh >/dev/null
cp "$out/full/speed.csv" "$out/full/stages.csv" "$out/full/bench_conv.log" "$out/" && rm -rf "${out:?}/full"
