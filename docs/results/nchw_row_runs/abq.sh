#!/usr/bin/env bash
# Kept for the record (run on the device as .device/abq.sh, with .device/ carried): the A/B of two
# full builds with --quick, alternating, two rounds: .device/base (base.tar.xz) and build-cuda. Used by
# final.sh here and, unchanged, for results/nchw_planes/ and results/nchw_output_pairs/.
set -uo pipefail
cd "$(dirname "$0")/.."
[ -d .device/base ] || tar xJf .device/base.tar.xz -C .device
. tools/device/stage.sh; use_stage build-cuda
out=${OUT:-/tmp/o}
for r in ${ROUNDS:-1 2}; do
  for b in base new; do
    d=$out/$b$r; mkdir -p $d
    if [ $b = base ]; then root=.device/base; else root=$stage; fi
    LD_LIBRARY_PATH=$root/runtime $root/tools/device/nova-bench-conv $d --quick ${BENCH_ARGS:-} > $d/log 2>&1 || echo FAIL $b$r
  done
done
for r in ${ROUNDS:-1 2}; do python3 tools/device/bench_tables.py $out/new$r --against $out/base$r | tail -12; done
echo "stage rows (layer C HW layout transform input_us gemm_us output_us)"
for d in base1 new1 base2 new2; do
  [ -f $out/$d/stages.csv ] && awk -F, -v d=$d 'NR>1 && $5 ~ /NCHW/ && $7==0 {print d, $1, $2, $3, $5, $6, $9, $10, $11}' $out/$d/stages.csv
done | sort -k2,2 -k3,3n -k5,5 -k1,1
