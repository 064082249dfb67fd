#!/usr/bin/env bash
# Nsight Compute's memory sections of the wgmma kernel (forced, f4x3_standard) at one layer in each build
# named by VARIANTS (.device/wgb_NAME.tar.xz), the clocks as the card runs them: L1 hit rate of the
# global loads, L2 and DRAM traffic, the shared-memory carveout. Writes $OUT/ncu_LAYOUT_NAME.txt and
# prints their headline lines. Usage (GPU machine, repository root): LAYER=64,224,32 VARIANTS="base u3" ncu.sh
set -uo pipefail
. tools/device/stage.sh
export NOVA_FUSED_KERNEL=wgmma
for layout in nhwc nchw; do
  for variant in ${VARIANTS:-base u3}; do
    use_stage wgb_$variant
    LD_LIBRARY_PATH=$stage/runtime:$stage/jit ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis \
      --section MemoryWorkloadAnalysis_Tables --section LaunchStats --kernel-name "regex:f4x3_standard_fused_wgmma_${layout}_f16_v" \
      --launch-count 1 "$stage/tools/device/nova-bench-conv" /tmp/ncu --layer "${LAYER:-64,224,32}" --transform f4x3_standard \
      >"${OUT:-/tmp}/ncu_${layout}_$variant.txt" 2>&1
    echo "== $layout $variant"
    grep -E "^    Duration|L1/TEX Hit Rate|L2 Hit Rate|Shared Memory Configuration Size|Dynamic Shared Memory Per Block|DRAM Throughput|L1/TEX Cache Throughput" \
      "${OUT:-/tmp}/ncu_${layout}_$variant.txt"
  done
done
