#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device/stage.sh; use_stage build-cuda
out=${OUT:-/tmp/o}; mkdir -p $out /tmp/nn
export LD_LIBRARY_PATH=$PWD/$stage/runtime:$PWD/$stage/jit
ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis --section SourceCounters \
  --kernel-name regex:fused_wgmma_nhwc_f16_v2 --launch-count 1 $stage/tools/device/nova-bench-conv /tmp/nn --layer ${LAYER:-64,56,32} --transform f2x3_standard > $out/ncu.txt 2>&1
ncu --set full --import-source no --kernel-name regex:fused_wgmma_nhwc_f16_v2 --launch-count 1 -o $out/prof $stage/tools/device/nova-bench-conv /tmp/nn --layer ${LAYER:-64,56,32} --transform f2x3_standard > /dev/null 2>&1
ncu -i $out/prof.ncu-rep --page source --csv --print-source sass > $out/source.csv 2>&1
ls -la $out; grep -E "Duration|Issued Warp|Warp Cycles Per Issued|Executed Instructions  |Memory Throughput|Stall|stall" $out/ncu.txt | head -40
