#!/usr/bin/env bash
# Nsight Compute of the NHWC output kernel from a 16-bit M (VGG-16 128@112 b32) in the build before the
# NHWC blocks (.device/before) and this one; AUTO on fresh random shapes with this build.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/o}
. tools/device/stage.sh; use_stage build-cuda
[ -d .device/before ] || tar xJf .device/before.tar.xz -C .device
for b in before new; do
  root=.device/before; [ $b = new ] && root=$stage
  mkdir -p /tmp/n$b
  LD_LIBRARY_PATH=$root/runtime ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
    --section InstructionStats --kernel-name regex:f4x3_standard_output_m16_nhwc --launch-count 1 \
    $root/tools/device/nova-bench-conv /tmp/n$b --layer 128,112,32 --transform f4x3_standard > $out/ncu_output_nhwc_$b.txt 2>&1
  echo "== $b"; grep -E "Duration|L2 Cache Throughput|DRAM Throughput|Memory Throughput|Registers Per|Executed Instructions  |Grid Size|Achieved Occupancy" $out/ncu_output_nhwc_$b.txt
done
for seed in 91 92; do
  mkdir -p $out/rand$seed
  LD_LIBRARY_PATH=$stage/runtime $stage/tools/device/nova-bench-conv $out/rand$seed --random 300 --seed $seed > $out/rand$seed/log 2>&1
  tail -1 $out/rand$seed/log
done
