#!/usr/bin/env bash
# Copied from .device/epi.sh for the record (run on the device with .device/exp carried).
# --epilogue of two experiment builds, alternating, two rounds; prints the NCHW rows' added share.
set -uo pipefail
cd "$(dirname "$0")/.."
o=${OUT:-/tmp/o}; mkdir -p $o
for r in 1 2; do for b in runs2 bias; do
  mkdir -p $o/$b$r
  LD_LIBRARY_PATH=.device/exp/$b .device/exp/$b/nova-bench-conv $o/$b$r --epilogue > $o/$b$r/log 2>&1 || echo "FAIL $b"
done; done
for f in $o/*/epilogue.csv; do n=$(basename $(dirname $f)); awk -F, -v n=$n 'NR>1 && $5 ~ /NCHW-f|NHWC-f/ {print n, $1, $2"@"$3, $5, $7, $8, $9}' $f; done | sort -k3,3 -k4,4 -k1,1
cd $o && tar czf /tmp/epi.tgz . && mv /tmp/epi.tgz .
