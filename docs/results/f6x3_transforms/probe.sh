#!/usr/bin/env bash
# Where the F(6,3) 3-pass loses to F(4,3) (fourteenth session): stage times of both transforms on the
# large layers, both layouts, and Nsight Compute of the four F(6,3) transform kernels at VGG-16 128@112.
# Run on the device from the repository root with .device/build-cuda.tar.xz carried.
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/o}; mkdir -p $out
. tools/device/stage.sh; use_stage ${STAGE:-build-cuda}
export LD_LIBRARY_PATH=$PWD/$stage/runtime:$PWD/$stage/jit
[ -n "${NCU_ONLY:-}" ] || for L in 128,112,32 256,56,32 64,224,32; do
  for T in f6x3_fp16 f4x3_standard; do
    d=$out/${T}-${L//,/_}; mkdir -p $d
    $stage/tools/device/nova-bench-conv $d --layer $L --transform $T > $d.log 2>&1 || echo FAIL $L $T
  done
done
mkdir -p /tmp/ncu
for K in input_nhwc_f16 input_tile_pairs_nchw_f16 output_m16_nhwc_f16 output_m16_nchw_f16; do
  ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis --kernel-name regex:f6x3_fp16_$K --launch-count 1 \
    $stage/tools/device/nova-bench-conv /tmp/ncu --layer ${LAYER:-128,112,32} --transform f6x3_fp16 > $out/ncu_$K.txt 2>&1
  echo "== $K"; grep -E "Duration|Registers Per|Achieved Occupancy|Memory Throughput|DRAM Throughput|L2 Cache Throughput|Warp Cycles Per Issued|Block Limit Registers|Stall|Theoretical Occupancy" $out/ncu_$K.txt
done
[ -n "${NCU_ONLY:-}" ] || for d in $out/*/; do echo "== $d"; grep -- "-3," $d/stages.csv | cut -d, -f3,5,6,9-14; done
