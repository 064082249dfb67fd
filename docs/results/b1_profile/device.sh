#!/usr/bin/env bash
# Nsight Compute's full set of both fused kernels at VGG-16 64@224 NHWC batch 1 (f4x3_standard), each
# forced (NOVA_FUSED_KERNEL), the first NHWC launch of each, clocks as found; then the roles summary
# (tools/device/sass_summary.py --roles) and the headline lines. On the GPU machine, from the repository
# root, with the committed build carried (.device/build-cuda.tar.xz). Writes into $OUT.
set -uo pipefail
. tools/device/stage.sh
use_stage build-cuda
mkdir -p /tmp/ncu
for kernel in mma wgmma; do
  NOVA_FUSED_KERNEL=$kernel LD_LIBRARY_PATH=$stage/runtime:$stage/jit ncu --clock-control none --set full -f -o /tmp/ncu/$kernel \
    --kernel-name "regex:f4x3_standard_fused_${kernel}_nhwc_f16_v[0-9]\$" --launch-count 1 \
    "$stage/tools/device/nova-bench-conv" /tmp/ncu --layer 64,224,1 --transform f4x3_standard >"$OUT/bench_$kernel.log" 2>&1
  ncu --import /tmp/ncu/$kernel.ncu-rep --page details >"$OUT/ncu_$kernel.txt" 2>&1
  ncu --import /tmp/ncu/$kernel.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip >"$OUT/source_$kernel.csv.gz"
  python3 tools/device/sass_summary.py --roles "$OUT/source_$kernel.csv.gz" >"$OUT/roles_$kernel.txt" 2>&1
  echo "== $kernel"
  grep -E "^  [a-z_0-9]+_fused|Duration|Registers Per|Achieved Occupancy|Memory Throughput|L2 Cache Throughput|DRAM Throughput|Compute \(SM\)" "$OUT/ncu_$kernel.txt" | head -12
done
