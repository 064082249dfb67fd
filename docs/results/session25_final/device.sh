#!/usr/bin/env bash
# The twenty-fifth session's final build (fused v5.14) on the GPU machine, from the repository root, with
# .device/build-cuda.tar.xz and .device/build-cuda.path carried: the whole GPU suite (ctest -L gpu and
# nova_torch's pytest tests; gpu_tests.txt), then two full fp16 speed tables with AUTO's geometric means
# against cuDNN (../session23_final/device.sh: run1/, run2/). Everything under $OUT is packed into
# $OUT/r.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
tools/device/run_gpu_tests.sh --log "$out/r/gpu_tests.txt" | tail -3
OUT=$out/r docs/results/session23_final/device.sh
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
