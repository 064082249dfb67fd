#!/usr/bin/env bash
# The twenty-eighth session's fit of AUTO's cost model (fit.txt here): the twenty-seventh session's
# (../current_kernels/fit.sh) with trees of at most 63 leaves (31 before; ../current_kernels/tree_size.sh)
# and ten more seeds of training data. All H200 data were measured with the fused v5.17 kernels:
# 26 seeds of 300 random shapes (112-121 of ../../session26_final/auto_random/, 126-131 of
# ../current_kernels/, 134-143 of ../../session27_final/auto_random/, the last measured by the build
# of the previous fit, dcbb408) and the benchmark layers at batches 1, 8 and 32; the H100 files of the
# older fits (tile_pairs/). Held out: H200 seeds 132 and 133 and H100 seeds 74 and 75 (the C++ test
# compares the runtime's choices on them with this fit's counts), and the fresh seeds that the device
# measures with this fit (../../session28_final/auto_random/).
# Usage (from the repository root): docs/results/cost_model/larger_trees/fit.sh [--write runtime/src/gpu_cost_fit.inc] [--cv 5]
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$root/docs/results/cost_model"
s26=../session26_final/auto_random s27=../session27_final/auto_random
measured_before=("$s26"/rand1{12,13,14,15,16,17,18,19,20,21}_new.csv.gz current_kernels/rand1{26,27,28,29,30,31}.csv.gz
                 current_kernels/frontier_b{1,8,32}.csv)
measured_dcbb408=("$s27"/rand1{34,35,36,37,38,39,40,41,42,43}_new.csv.gz)
h200=("${measured_before[@]}" "${measured_dcbb408[@]}")
h100=(tile_pairs/h100_seed{17,20,21,22,23,24,25,54,55}.csv.gz tile_pairs/h100_frontier_b32.csv)
held_h200=(current_kernels/rand13{2,3}.csv)
held_h100=(trees/h100_trees_seed7{4,5}.csv)
dcbb408=larger_trees/chosen_with_dcbb408.txt  # that build's kFusedCoefficients
chosen=(--chosen-with current_kernels/chosen_with.txt "${measured_before[@]}" "${held_h200[@]}"
        --chosen-with "$dcbb408" "${measured_dcbb408[@]}")
options=(--tree-size 400 63 0.05)
. ./run_fit.sh
