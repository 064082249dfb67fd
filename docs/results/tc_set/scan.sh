#!/usr/bin/env bash
# Every symmetric F(4,3) set {0, +-a, +-b} with a < b multiples of 1/16 up to 4 (2,016 sets): amp2D (nova-discover
# --points, balanced scaling) and B^T (x) B^T's tables in fp16 and bf16 (the generated Transform's
# kronecker_terms_fp16/bf16, nova-codegen). Prints the sets with one fp16 table, best amp2D first.
# Usage (repository root, after a build): docs/results/tc_set/scan.sh [build dir, default build] > scan.txt
set -euo pipefail
build=${1:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
for i in $(seq 1 64); do
  for j in $(seq $((i + 1)) 64); do
    n=$((n + 1))
    "$build/discover/nova-discover" --tile 4,3 --points "0,$i/16,-$i/16,$j/16,-$j/16" --name "s$n" --out "$work/f4x3_s$n.json" -q
    echo "s$n $i/16 $j/16"
  done
done >"$work/sets.txt"
"$build/codegen/nova-codegen" "$work"/f4x3_s*.json --out "$work/gen" >/dev/null
echo "a b amp2D fp16_tables bf16_tables"
while read -r name a b; do
  amp=$(grep -o '"amp2D":[0-9.e+-]*' "$work/f4x3_$name.json" | cut -d: -f2)
  terms=$(sed -n 's/.*kronecker_terms_fp16 = \([0-9]\), kronecker_terms_bf16 = \([0-9]\).*/\1 \2/p' "$work/gen/f4x3_${name}_transforms.hpp")
  echo "$a $b $amp $terms"
done <"$work/sets.txt" | awk '$4 == 1' | sort -k3 -g
