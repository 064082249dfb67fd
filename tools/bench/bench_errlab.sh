#!/usr/bin/env bash
# Times nova-errlab on one million F(6,3) output tiles: C = 64 input channels summed per tile,
# K = 64 output channels, the kernel-fp16 model, fp64 direct-convolution reference included.
# Target: under 10 s wall on the 2-core development machine.
# Usage: tools/bench/bench_errlab.sh [path/to/nova-errlab] [more nova-errlab options]
set -euo pipefail
cd "$(dirname "$0")/../.."
errlab=${1:-build/errlab/nova-errlab}
shift $(( $# > 0 ? 1 : 0 ))
[ -x "$errlab" ] || { echo "bench_errlab: $errlab not found; build first (cmake --build build)" >&2; exit 1; }

start=$(date +%s.%N)
TIMEFORMAT='cpu time: %U s user + %S s sys (above the wall time when both cores work)'
{ time "$errlab" configs/f6x3_nova.json --model kernel-fp16 --channels 64 --filters 64 --tiles 1000000 "$@"; } 2>&1
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v cores="$(nproc)" 'BEGIN {
  wall = e - s
  printf "1M F(6,3) tiles: %.2f s wall on %d core(s) (target < 10 s): %s\n", wall, cores, wall < 10 ? "PASS" : "SLOW"
}'
