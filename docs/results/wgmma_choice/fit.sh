#!/usr/bin/env bash
# The thirtieth session's fit of AUTO's cost model (fit.txt here), in which the runtime chooses between the
# two fused kernels by the model (gpu_cost_model.hpp fused_runs_wgmma). The twenty-eighth session's fit
# (../cost_model/larger_trees/fit.sh) with, on top of its data: the wgmma kernel's times beside the
# mma.sync kernel's of the same configurations, measured with fused v5.20 (847cc97's kernels and fit):
# seeds 158-161 and the benchmark layers at batches 1, 8 and 32 here (device_data.sh: the bench times each
# fused configuration on both kernels; these frontier files replace the v5.17 ones), and seeds 154-157 of
# ../nhwc_wgmma_data/ (the wgmma kernel forced). Held out: seed 162 here besides the earlier fit's H200 seeds
# 132 and 133 and H100 seeds 74 and 75 (the C++ test compares the runtime's choices on them with this fit's
# counts), and the fresh seeds the device measures with this fit.
# Usage (from the repository root): docs/results/wgmma_choice/fit.sh [--write runtime/src/gpu_cost_fit.inc] [--cv 5]
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root/docs/results/cost_model"
s26=../session26_final/auto_random s27=../session27_final/auto_random here=../wgmma_choice forced=../nhwc_wgmma_data
measured_before=("$s26"/rand1{12,13,14,15,16,17,18,19,20,21}_new.csv.gz current_kernels/rand1{26,27,28,29,30,31}.csv.gz)
measured_dcbb408=("$s27"/rand1{34,35,36,37,38,39,40,41,42,43}_new.csv.gz)
measured_d087224=("$forced"/rand15{4,5,6,7}_new.csv.gz "$here"/rand1{58,59,60,61}_new.csv.gz "$here"/frontier_b{1,8,32}.csv.gz)
h200=("${measured_before[@]}" "${measured_dcbb408[@]}" "${measured_d087224[@]}")
h100=(tile_pairs/h100_seed{17,20,21,22,23,24,25,54,55}.csv.gz tile_pairs/h100_frontier_b32.csv)
held_h200=(current_kernels/rand13{2,3}.csv "$here"/rand162_new.csv)
held_h100=(trees/h100_trees_seed7{4,5}.csv)
chosen=(--chosen-with current_kernels/chosen_with.txt "${measured_before[@]}" current_kernels/rand13{2,3}.csv
        --chosen-with larger_trees/chosen_with_dcbb408.txt "${measured_dcbb408[@]}"
        --chosen-with "$here"/chosen_with_d087224.txt "${measured_d087224[@]}" "$here"/rand162_new.csv)
options=(--tree-size 400 63 0.05 --wgmma-forced "$forced"/rand15{4,5,6,7}_new.csv.gz)
. ./run_fit.sh
