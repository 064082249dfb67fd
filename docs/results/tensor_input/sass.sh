#!/usr/bin/env bash
# Nsight Compute's full set on the first launch of the f4x3_standard NHWC fp16 mma.sync kernel (one K
# block a warp) at VGG-16 64@224 batch 32, in the committed build (.device/base) and the tensor-core
# phase-1 build (.device/build-cuda), each run by the new build's bench; the per-instruction source
# pages (source_{base,new}.csv.gz) summed by tools/device/sass_summary.py. Run from the repository root
# with .device/base.tar.xz, .device/build-cuda.tar.xz and .device/build-cuda.path carried.
set -uo pipefail
out=${OUT:-/tmp/o}
. tools/device/stage.sh
use_stage build-cuda
use_base
mkdir -p /tmp/b "$out"
for build in base new; do
  root=.device/base
  [ $build = new ] && root=$stage
  LD_LIBRARY_PATH=$root/runtime:$root/jit timeout 200 ncu --set full \
    --kernel-name "regex:f4x3_standard_fused_mma_nhwc_f16_v0\$" --launch-count 1 -o /tmp/$build \
    "$stage/tools/device/nova-bench-conv" /tmp/b --layer 64,224,32 --transform f4x3_standard >"$out/ncu_full_$build.log" 2>&1
  ncu --import /tmp/$build.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip >"$out/source_$build.csv.gz"
  python3 tools/device/sass_summary.py "$out/source_$build.csv.gz" >"$out/sass_$build.txt"
done
head -30 "$out/sass_base.txt" "$out/sass_new.txt"
