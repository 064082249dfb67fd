#!/usr/bin/env bash
# AUTO on fresh random shapes with the staged build (fourteenth session): within 10 % of NOVA's
# fastest configuration how often, and the worst miss (the last line of each log).
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/o}; mkdir -p $out
. tools/device/stage.sh; use_stage build-cuda
for seed in ${SEEDS:-93}; do
  mkdir -p /tmp/rand$seed
  LD_LIBRARY_PATH=$stage/runtime:$stage/jit $stage/tools/device/nova-bench-conv /tmp/rand$seed --random 300 --seed $seed > $out/rand$seed.log 2>&1
  tail -1 $out/rand$seed.log
done
