#!/usr/bin/env bash
# Nsight Compute of the wgmma kernel's forward of VGG-16 64@224 b1 (two tile groups of 12 an SM), as graph replay
# leaves the caches (--cache-control none, the 31st launch), full set; the small build of bf306bd (.device/base).
# Writes ncu_64x224_b1.txt and the source page (ncu_64x224_b1_source.csv.gz) for tools/device/sass_summary.py --roles.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. tools/device/stage.sh
use_stage base
export NOVA_FUSED_KERNEL=wgmma
out=${OUT:-.}
mkdir -p /tmp/ncu_bench
LD_LIBRARY_PATH=$stage/runtime:$stage/jit ncu --cache-control none --clock-control none --set full -f -o /tmp/b1 \
  --kernel-name regex:fused_wgmma --launch-skip 30 --launch-count 1 \
  "$stage/tools/device/nova-bench-conv" /tmp/ncu_bench --layer 64,224,1 --transform f4x3_standard 2>&1 | tail -5
ncu --import /tmp/b1.ncu-rep --page details >"$out/ncu_64x224_b1.txt" 2>&1
ncu --import /tmp/b1.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip >"$out/ncu_64x224_b1_source.csv.gz"
grep -E "Duration|SM Active Cycles|Elapsed Cycles|SM Frequency" "$out/ncu_64x224_b1.txt"
