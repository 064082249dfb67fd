#!/usr/bin/env bash
# Copied from .device/ab.sh for the record: run on the device with .device/exp carried (expbuild.sh stages the builds there).
# A/B: builds alternating, two rounds, layers given, one transform forced; prints fused-forced and AUTO graph us.
# A build named X+mma runs .device/exp/X with NOVA_FUSED_KERNEL=mma.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/abo}/ab; mkdir -p $out
layers="${LAYERS:-64,224,32 64,56,32 128,112,32 128,28,32 64,224,8 128,112,8}"
builds="${BUILDS:-base runs}"
tf=${TF:-f4x3_standard}
for round in 1 2; do
  for b in $builds; do
    dir=${b%+mma}; env=""; [ "$dir" != "$b" ] && env="NOVA_FUSED_KERNEL=mma"
    for L in $layers; do
      d=$out/$b-r$round-${L//,/x}; mkdir -p $d
      env $env LD_LIBRARY_PATH=.device/exp/$dir .device/exp/$dir/nova-bench-conv $d --layer $L --transform $tf > $d/log 2>&1 || echo "FAIL $b $L"
    done
  done
done
tar czf ${OUT:-/tmp/abo}/ab.tgz -C $out . 
echo "run layout nova_graph_us cudnn_graph_us"
for f in $out/*/speed.csv; do
  n=$(basename $(dirname $f))
  awk -F, -v n=$n -v want="${SHOW:-NCHW-f NCHW NHWC-f NHWC}" 'BEGIN{split(want,w," "); for(i in w) ok[w[i]]=1} NR>1 && ok[$5] {print n, $5, $10, $11}' $f
done | sort -k2,2 -k1,1
