#!/usr/bin/env bash
# The refit for the staged NCHW output, on the GPU machine from the repository root, with
# .device/base.tar.xz (the build before the refit), .device/build-cuda.tar.xz (the refit's) and
# .device/build-cuda.path carried: the refit build's GPU tests, AUTO on 600 fresh random shapes (seeds
# 109 and 110, fitted by neither build) with both builds in one call, and the refit build's --quick
# speed table. Everything is packed into $OUT/refit.tar.gz (the device tool returns 8 files a call).
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/refit"
tools/device/run_gpu_tests.sh --log "$out/refit/gpu_tests.txt"
OUT=$out/refit SEEDS="109 110" AUTO_BUILDS="base new" tools/device/auto_random.sh
OUT=$out/refit/quick tools/device/bench_conv.sh --quick >/dev/null
tar czf "$out/refit.tar.gz" -C "$out" refit && rm -rf "${out:?}/refit"
