#!/usr/bin/env bash
# Kept for the record (run on the device as .device/abn.sh, with .device/ and abq.sh carried; twelfth
# session, results/nhwc_blocks/): results/nchw_row_runs/abq.sh, then the NHWC stage rows of its four runs.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/o}
bash .device/abq.sh > $out/ab.txt 2>&1
echo "stage rows NHWC (run layer C HW layout transform input gemm output)"
for d in base1 new1 base2 new2; do
  awk -F, -v d=$d 'NR>1 && $5 ~ /NHWC/ && $7==0 {print d, $1, $2, $3, $5, $6, $9, $10, $11}' $out/$d/stages.csv
done | sort -k2,2 -k3,3n -k5,5 -k1,1 > $out/stages_nhwc.txt
(cd $out && tar czf runs.tgz base1 base2 new1 new2 && rm -rf base1 base2 new1 new2)
head -20 $out/ab.txt
grep "NHWC-3" $out/stages_nhwc.txt
