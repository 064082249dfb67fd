#!/usr/bin/env bash
# Nsight Compute (the sections the performance log quotes) of the wgmma kernel at one layer with groups of
# 16 and of 8: the experiment build .device/wgb_tiles, NOVA_WG_TILES unset and =8, the first NHWC fp16
# launch of f4x3_standard's wgmma kernel (v0: 16 tiles, v1: 8) in `nova-bench-conv --layer LAYER`, the
# kernel forced. Writes $OUT/ncu_LAYER_tilesT.txt and prints their headline lines.
# Usage (GPU machine, repository root, .device/wgb_tiles.tar.xz carried): ncu.sh LAYER   (e.g. 64,56,1)
set -uo pipefail
layer=${1:?usage: ncu.sh LAYER}
. tools/device/stage.sh
use_stage wgb_tiles
export NOVA_FUSED_KERNEL=wgmma
mkdir -p /tmp/ncu  # the bench's output folder
for tiles in 16 8; do
  if [ $tiles = 8 ]; then export NOVA_WG_TILES=8; else unset NOVA_WG_TILES; fi
  out=$OUT/ncu_${layer//,/_}_tiles$tiles.txt
  LD_LIBRARY_PATH=$stage/runtime:$stage/jit ncu --clock-control none --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
    --kernel-name "regex:f4x3_standard_fused_wgmma_nhwc_f16_v[01]\$" --launch-count 1 \
    "$stage/tools/device/nova-bench-conv" /tmp/ncu --layer "$layer" --transform f4x3_standard >"$out" 2>&1
  echo "== ncu $layer tiles $tiles"
  grep -E "nova_f4x3|Duration|Grid Size|Registers Per|Achieved Occupancy|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|DRAM Throughput" "$out"
done
