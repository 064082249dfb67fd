#!/usr/bin/env bash
# The twenty-seventh session's fit of AUTO's cost model (fit.txt here): training data measured with
# today's kernels (the fused v5.17 build) on an H200: fourteen seeds of 300 random shapes (112-119 of
# ../../session26_final/auto_random/, 126-131 here) and the benchmark layers at batches 1, 8 and 32
# (frontier_b*.csv); the H100 files of the previous fit (tile_pairs/, measured by an older build: the
# only data of a GPU with less memory bandwidth). Held out: H200 seeds 120, 121, 132 and 133 (the same
# build; 132 and 133 kept unzipped, for the C++ test), and the H100 seeds 74 and 75 of trees/ (the test
# compares the runtime's choices on 132-133 and 74-75 with these counts).
# Usage (from the repository root): docs/results/cost_model/current_kernels/fit.sh [--write runtime/src/gpu_cost_fit.inc] [--cv 5]
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$root/docs/results/cost_model"
earlier=../session26_final/auto_random
h200=("$earlier"/rand11{2,3,4,5,6,7,8,9}_new.csv.gz current_kernels/rand1{26,27,28,29,30,31}.csv.gz
      current_kernels/frontier_b{1,8,32}.csv)
h100=(tile_pairs/h100_seed{17,20,21,22,23,24,25,54,55}.csv.gz tile_pairs/h100_frontier_b32.csv)
held_h200=("$earlier"/rand12{0,1}_new.csv.gz current_kernels/rand13{2,3}.csv)
held_h100=(trees/h100_trees_seed7{4,5}.csv)
chosen=(--chosen-with current_kernels/chosen_with.txt "${h200[@]}" "${held_h200[@]}")
options=()
. ./run_fit.sh
