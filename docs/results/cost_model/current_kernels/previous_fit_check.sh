#!/usr/bin/env bash
# The previous fit (runtime/src/gpu_cost_fit.inc of commit 7150ba1) on this fit's held-out shapes,
# offline: its own command (the banner of that file: H200 data of older kernels, tile_pairs/ and
# trees/, and the H100 files) reproduced, then --check on H200 seeds 120, 121, 132, 133 (docs/runtime.md
# compares its 1,055 of 1,200 with fit.txt's), on the H100 seeds 74 and 75 (the C++ test's counts with
# that file) and on the fresh seeds 134-143 of ../../session27_final/auto_random/
# (previous_fit_check.txt).
# Usage (from the repository root): docs/results/cost_model/current_kernels/previous_fit_check.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$root/docs/results/cost_model"
h200=(tile_pairs/seed{26,27,28,29,30,31,32,40,41,42,43,50,51,52,53,60,61,62,63}.csv.gz
      tile_pairs/frontier_b{1,8,32}.csv)
h100=(tile_pairs/h100_seed{17,20,21,22,23,24,25,54,55}.csv.gz tile_pairs/h100_frontier_b32.csv)
held_h200=(../session26_final/auto_random/rand12{0,1}_new.csv.gz current_kernels/rand13{2,3}.csv)
held_h100=(trees/h100_trees_seed7{4,5}.csv)
fresh=(../session27_final/auto_random/rand1{34,35,36,37,38,39,40,41,42,43}_new.csv.gz)
FRESH="${fresh[*]}"
chosen=()
options=()
. ./run_fit.sh | grep "shapes"
