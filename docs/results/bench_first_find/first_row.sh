#!/usr/bin/env bash
# The device calls of first_row.txt and first_row_cold.txt: `nova-bench-conv --layer 64,56,1` (ResNet-50
# 64@56, batch 1, every layout and path) with b60c6d5's runtime (.device/base), by two benches in the
# order given (default "benchonly benchfix": b60c6d5's bench, then the same with the first cudnnFind run
# twice; each a folder holding tools/device/nova-bench-conv), twice; prints each row's graph times.
# first_row.txt: the default order; first_row_cold.txt: ORDER="benchfix benchonly". Each on a machine
# the device tool had just started. Run from the repository root with .device/base.tar.xz and the
# benches' archives carried.
cd "$(dirname "$0")/../../.."
order=${ORDER:-benchonly benchfix}
cd .device && for a in base $order; do [ -d $a ] || tar xJf $a.tar.xz; done; cd ..
for run in 1 2; do
  for b in $order; do
    d=/tmp/f/$b$run
    mkdir -p $d
    LD_LIBRARY_PATH=.device/base/runtime:.device/base/jit .device/$b/tools/device/nova-bench-conv $d --layer 64,56,1 \
      >$d.log 2>&1
    echo "== $b run $run"
    awk -F, 'NR > 1 { print $5, "nova", $10, "cudnn", $11 }' $d/speed.csv
  done
done | tee "${OUT:-/tmp/o}/first_row.txt"
