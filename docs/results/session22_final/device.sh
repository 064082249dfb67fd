#!/usr/bin/env bash
# The twenty-second session's final build (v5.6, the wgmma fold beside the next row's products) on the
# GPU machine, from the repository root, with .device/build-cuda.tar.xz and .device/build-cuda.path
# carried: the full fp16 speed table (batches 1, 8 and 32, both layouts; tools/device/bench_conv.sh),
# then AUTO's geometric means against cuDNN. Its GPU tests ran in ../fold_overlap/v2/gpu_tests.txt.
set -uo pipefail
out=${OUT:-/tmp/o}
OUT=$out/full tools/device/bench_conv.sh >/dev/null
cp "$out/full/speed.csv" "$out/full/stages.csv" "$out/full/bench_conv.log" "$out/" && rm -rf "${out:?}/full"
docs/results/nchw_output_pairs/geomeans.py "$out/speed.csv"
