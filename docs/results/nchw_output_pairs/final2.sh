#!/usr/bin/env bash
# One device call: GPU tests of build-cuda, AUTO on fresh random shapes, the A/B against base, and
# Nsight Compute of the NCHW input kernel (VGG-16 512@28 batch 32) in both builds.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/o}
rm -rf .device/build-cuda
tools/device/run_gpu_tests.sh > $out/gpu_tests.txt 2>&1; echo "gpu tests rc=$?"
grep -E "tests passed|tests failed| passed" $out/gpu_tests.txt | tail -3
. tools/device/stage.sh; use_stage build-cuda
[ -d .device/base ] || tar xJf .device/base.tar.xz -C .device
for seed in 89; do
  mkdir -p $out/rand$seed
  LD_LIBRARY_PATH=$stage/runtime $stage/tools/device/nova-bench-conv $out/rand$seed --random 300 --seed $seed > $out/rand$seed/log 2>&1
  tail -1 $out/rand$seed/log
done
for b in base new; do
  root=.device/base; [ $b = new ] && root=$stage
  mkdir -p /tmp/n$b
  LD_LIBRARY_PATH=$root/runtime ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section SchedulerStats --section MemoryWorkloadAnalysis --section InstructionStats --kernel-name regex:f4x3_standard_output_m16_nchw \
    --launch-count 1 $root/tools/device/nova-bench-conv /tmp/n$b --layer 128,112,32 --transform f4x3_standard > $out/ncu_$b.txt 2>&1
done
bash .device/abq.sh > $out/ab.txt 2>&1
(cd $out && tar czf runs.tgz base1 base2 new1 new2 rand89 && rm -rf base1 base2 new1 new2 rand89 rand90)
for b in base new; do echo "== ncu $b"; grep -E "Duration|Registers Per|Issued Warp Per|Warp Cycles Per Issued|Executed Instructions  |Memory Throughput|L1/TEX Hit|Achieved Occupancy" $out/ncu_$b.txt; done
head -20 $out/ab.txt
