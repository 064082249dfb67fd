#!/usr/bin/env bash
# Nsight Compute of the wgmma kernel's forward of one lone tile group (a 64 -> 64 shape of 8 x 8 pixels, batch 1: 4
# tiles, one block) and of ResNet-50 64@56 b8 (131 blocks of one group of 12), as graph replay leaves the caches
# (--cache-control none, the 31st launch), full set; the base small build (.device/base). Writes ncu_lone_*.txt and
# the source pages (ncu_lone_*_source.csv.gz) for tools/device/sass_summary.py --roles. SHAPES in the environment: other
# shapes or layers, as the bench names them (default "shape:64,64,8,1 layer:64,56,8"; ../b1_warm/ncu.sh); STAGE: another
# small build (default base; ../tc_table/device.sh).
set -uo pipefail
cd "$(dirname "$0")/../../.."
. tools/device/stage.sh
use_stage "${STAGE:-base}"
export NOVA_FUSED_KERNEL=wgmma
out=${OUT:-.}
mkdir -p /tmp/ncu_bench
for what in ${SHAPES:-shape:64,64,8,1 layer:64,56,8}; do
  name=$(echo "${what#*:}" | tr , _)
  LD_LIBRARY_PATH=$stage/runtime:$stage/jit ncu --cache-control none --clock-control none --set full -f -o /tmp/lone_$name \
    --kernel-name regex:fused_wgmma --launch-skip 30 --launch-count 1 \
    "$stage/tools/device/nova-bench-conv" /tmp/ncu_bench --${what%%:*} "${what#*:}" --transform f4x3_standard >/dev/null 2>&1
  ncu --import /tmp/lone_$name.ncu-rep --page details >"$out/ncu_lone_$name.txt" 2>&1
  ncu --import /tmp/lone_$name.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip >"$out/ncu_lone_${name}_source.csv.gz"
  grep -E "Duration|SM Active Cycles|Elapsed Cycles|SM Frequency" "$out/ncu_lone_$name.txt"
done
