#!/usr/bin/env bash
# F(6,3) NHWC input in channel pairs of small blocks (fourteenth session): the committed build
# (.device/base.tar.xz, made from build-cuda before the change) against this one, alternating twice,
# forced 3-pass rows of f6x3_fp16 and f4x3_standard (whose pair kernel changed form too) on the layers
# where the 3-pass pipeline matters; then Nsight Compute of the F(6,3) NHWC input kernel in both.
# Run on the device from the repository root with .device/build-cuda.tar.xz, .device/build-cuda.path
# and .device/base.tar.xz carried. RUNS (default "1 2"), DTYPES (default fp16). Prints, sorted,
# "layer transform dtype build run: NHWC-3 graph µs | input, GEMM and output stage µs".
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/o}; mkdir -p $out
. tools/device/stage.sh; use_stage build-cuda
[ -d .device/base ] || tar xJf .device/base.tar.xz -C .device
for run in ${RUNS:-1 2}; do
  for b in base new; do
    root=.device/base; [ $b = new ] && root=$stage
    for L in 128,112,32 256,56,32 64,224,32 64,56,32 512,28,32; do
      for T in f6x3_fp16 f4x3_standard; do
        for D in ${DTYPES:-fp16}; do
          d=/tmp/ab/$b$run-$T-$D-${L//,/_}; mkdir -p $d
          LD_LIBRARY_PATH=$root/runtime:$root/jit $root/tools/device/nova-bench-conv $d --layer $L --transform $T --dtype $D > $d.log 2>&1 || echo FAIL $b $L $T $D
          g=$(awk -F, '$5=="NHWC-3"{print $0}' $d/speed.csv | head -1)
          s=$(awk -F, '$5=="NHWC-3"{print $9, $10, $11}' $d/stages.csv | head -1)
          echo "$L $T $D $b $run: $(echo $g | cut -d, -f10) | in gemm out: $s" >> $out/ab.txt
        done
      done
    done
  done
done
mkdir -p /tmp/ncu
for b in base new; do
  root=.device/base; [ $b = new ] && root=$stage
  LD_LIBRARY_PATH=$root/runtime:$root/jit ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis --kernel-name regex:f6x3_fp16_input_nhwc_f16 --launch-count 1 \
    $root/tools/device/nova-bench-conv /tmp/ncu --layer 128,112,32 --transform f6x3_fp16 > $out/ncu_input_nhwc_$b.txt 2>&1
  echo "== ncu $b"; grep -E "Duration|Registers Per|Block Size|Achieved Occupancy|Memory Throughput|Warp Cycles Per Issued" $out/ncu_input_nhwc_$b.txt
done
sort $out/ab.txt
