#!/usr/bin/env bash
# Kept for the record (run on the device with .device/ carried; abq.sh beside it as .device/abq.sh):
# one device call of the eleventh session: GPU tests of build-cuda, AUTO on fresh random shapes, the
# A/B against .device/base (abq.sh), and Nsight Compute of one kernel on one layer in both builds.
# The runs of this folder:         SEEDS="89 90" KERNEL=f4x3_standard_input_nchw LAYER=512,28,32
# results/nchw_output_pairs/:      SEEDS=89      KERNEL=f4x3_standard_output_m16_nchw LAYER=128,112,32
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/o}
seeds=${SEEDS:-89 90}
rm -rf .device/build-cuda
tools/device/run_gpu_tests.sh > $out/gpu_tests.txt 2>&1; echo "gpu tests rc=$?"
grep -E "tests passed|tests failed| passed" $out/gpu_tests.txt | tail -3
. tools/device/stage.sh; use_stage build-cuda
[ -d .device/base ] || tar xJf .device/base.tar.xz -C .device
for seed in $seeds; do
  mkdir -p $out/rand$seed
  LD_LIBRARY_PATH=$stage/runtime $stage/tools/device/nova-bench-conv $out/rand$seed --random 300 --seed $seed > $out/rand$seed/log 2>&1
  tail -1 $out/rand$seed/log
done
for b in base new; do
  root=.device/base; [ $b = new ] && root=$stage
  mkdir -p /tmp/n$b
  LD_LIBRARY_PATH=$root/runtime ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section SchedulerStats --section MemoryWorkloadAnalysis --section InstructionStats --kernel-name regex:${KERNEL:-f4x3_standard_input_nchw} \
    --launch-count 1 $root/tools/device/nova-bench-conv /tmp/n$b --layer ${LAYER:-512,28,32} --transform f4x3_standard > $out/ncu_$b.txt 2>&1
done
bash .device/abq.sh > $out/ab.txt 2>&1
(cd $out && tar czf runs.tgz base1 base2 new1 new2 $(for s in $seeds; do echo rand$s; done) && rm -rf base1 base2 new1 new2 rand*)
for b in base new; do echo "== ncu $b"; grep -E "Duration|Registers Per|Issued Warp Per|Warp Cycles Per Issued|Executed Instructions  |Memory Throughput|L1/TEX Hit|Achieved Occupancy" $out/ncu_$b.txt; done
head -20 $out/ab.txt
