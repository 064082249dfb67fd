#!/usr/bin/env bash
# Kept for the record (run on the device as .device/abfull.sh, with .device/ carried): one full bench
# run (batches 1, 8, 32) of .device/base and of build-cuda, then bench_tables.py --against and each
# run's geometric means. Made results/nhwc_blocks/final_form/ and, through ../../dependent_launch/pdl.sh,
# results/dependent_launch/.
set -uo pipefail
cd "$(dirname "$0")/.."
[ -d .device/base ] || tar xJf .device/base.tar.xz -C .device
. tools/device/stage.sh; use_stage build-cuda
out=${OUT:-/tmp/o}
for b in base new; do
  d=$out/${b}_full; mkdir -p $d
  root=.device/base; [ $b = new ] && root=$stage
  LD_LIBRARY_PATH=$root/runtime $root/tools/device/nova-bench-conv $d > $d/log 2>&1 || echo FAIL $b
done
python3 tools/device/bench_tables.py $out/new_full --against $out/base_full | tail -10 > $out/ab_full.txt
for b in base new; do python3 tools/device/bench_tables.py $out/${b}_full | grep "^Batch" | sed "s/^/$b: /"; done >> $out/ab_full.txt
(cd $out && tar czf runs_full.tgz base_full new_full && rm -rf base_full new_full)
cat $out/ab_full.txt
