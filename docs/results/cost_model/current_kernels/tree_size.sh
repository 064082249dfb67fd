#!/usr/bin/env bash
# The trees' size against data of today's kernels, offline: fit.sh's training files fitted with the
# committed size (400 trees of at most 31 leaves), with 800 of 31 and with 400 of 63, each checked on
# the 3,000 fresh shapes of ../../session27_final/auto_random/ (seeds 134-143, measured by the build of
# the committed fit after it was written: no fit saw them). Prints each check's summary (tree_size.txt).
# Usage (from the repository root): docs/results/cost_model/current_kernels/tree_size.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$root/docs/results/cost_model"
earlier=../session26_final/auto_random fresh=../session27_final/auto_random
h200=("$earlier"/rand11{2,3,4,5,6,7,8,9}_new.csv.gz current_kernels/rand1{26,27,28,29,30,31}.csv.gz
      current_kernels/frontier_b{1,8,32}.csv)
h100=(tile_pairs/h100_seed{17,20,21,22,23,24,25,54,55}.csv.gz tile_pairs/h100_frontier_b32.csv)
held_h200=("$fresh"/rand1{34,35,36,37,38,39,40,41,42,43}_new.csv.gz)
held_h100=()
committed=$(mktemp)
trap 'rm -f "$committed"' EXIT
git -C "$root" show dcbb408:runtime/src/gpu_cost_fit.inc >"$committed"  # the build that measured $held_h200
chosen=(--chosen-with current_kernels/chosen_with.txt "${h200[@]}" --chosen-with "$committed" "${held_h200[@]}")
for size in "400 31 0.05" "800 31 0.05" "400 63 0.05"; do
  # shellcheck disable=SC2206  # three numbers
  options=(--tree-size $size)
  summary=$(. ./run_fit.sh | grep -E "^trees:|held-out shapes, all")
  echo "tree size $size: $(echo "$summary" | tr '\n' ' ')"
done
