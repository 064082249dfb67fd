#!/usr/bin/env bash
# On the GPU machine with .device/wgb_base.tar.xz carried (README.md): Nsight Compute, full set, of the wgmma kernel at
# VGG-16 64@224 b8 (forced), NHWC (the tensor-core input path) and NCHW; the details and per-instruction source pages into $OUT.
set -uo pipefail
. tools/device/stage.sh
use_stage wgb_base
export NOVA_FUSED_KERNEL=wgmma
mkdir -p /tmp/ncu
for lay in nhwc nchw; do
  mkdir -p /tmp/ncu/out_$lay
  LD_LIBRARY_PATH=$stage/runtime:$stage/jit ncu --clock-control none --set full -f -o /tmp/ncu/$lay --kernel-name "regex:fused_wgmma_${lay}_f16_v0" \
    --launch-count 1 "$stage/tools/device/nova-bench-conv" /tmp/ncu/out_$lay --layer 64,224,8 --transform f4x3_standard > $OUT/ncu_$lay.log 2>&1
  ncu --import /tmp/ncu/$lay.ncu-rep --page details > $OUT/details_$lay.txt 2>&1
  ncu --import /tmp/ncu/$lay.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $OUT/source_$lay.csv.gz
  grep -E "Duration|Bank|bank|Shared" $OUT/details_$lay.txt | head -20
done
