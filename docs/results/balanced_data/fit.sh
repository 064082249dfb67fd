#!/usr/bin/env bash
# The fifty-first session's fit of AUTO's cost model (fit.txt here): the fiftieth session's fit
# (../balanced_choice/fit.sh) with data measured by today's kernels added, the build of b2ad838 that runs the
# wgmma kernel's balanced tile groups (so these files are not marked --unbalanced-groups): the benchmark layers at
# batches 1, 8 and 32 and four random sets (seeds 279 and 280 with C = 64, 281 and 282 free), all by
# tools/device/cost_model_data.sh. Held out as before (H200 seeds 132, 133, 162 and 223, H100 seeds 74 and 75), and
# two fresh sets of the same build: seed 277 (C = 64) and 278 (free), which auto_random.sh measured with AUTO.
# PREVIOUS=1 leaves today's files out of the fit, which then reproduces the fiftieth session's, and checks that fit
# on all six of today's sets (previous_fit.txt).
# Usage (from the repository root): [PREVIOUS=1] docs/results/balanced_data/fit.sh [--write runtime/src/gpu_cost_fit.inc] [--cv 5]
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root/docs/results/cost_model"
s26=../session26_final/auto_random s27=../session27_final/auto_random wg=../wgmma_choice forced=../nhwc_wgmma_data
tc=../tc_choice wave=../wave_choice two=../tc_two_tables today=../balanced_data
measured_before=("$s26"/rand1{12,13,14,15,16,17,18,19,20,21}_new.csv.gz current_kernels/rand1{26,27,28,29,30,31}.csv.gz)
measured_dcbb408=("$s27"/rand1{34,35,36,37,38,39,40,41,42,43}_new.csv.gz)
measured_d087224=("$forced"/rand15{4,5,6,7}_new.csv.gz "$wg"/rand1{58,59,60,61}_new.csv.gz)
measured_cf4297f=("$tc"/rand2{19,20,21,22,24,25}_new.csv.gz)
measured_6eb5073=("$wave"/rand23{4,5,6,7,8}_new.csv.gz "$wave"/frontier_b1.csv.gz)
measured_21a6512=("$two"/rand24{3,4,5}_new.csv.gz "$two"/frontier_b{8,32}.csv.gz)
measured_b2ad838=("$today"/rand2{79,80,81,82}_new.csv.gz "$today"/frontier_b{1,8,32}.csv.gz)
fresh_b2ad838=("$today"/rand27{7,8}_new.csv)
if [ "${PREVIOUS:-}" = 1 ]; then
  fresh_b2ad838+=("${measured_b2ad838[@]::4}")
  measured_b2ad838=()
fi
h200=("${measured_before[@]}" "${measured_dcbb408[@]}" "${measured_d087224[@]}" "${measured_cf4297f[@]}" "${measured_6eb5073[@]}"
      "${measured_21a6512[@]}" "${measured_b2ad838[@]}")
h100=(tile_pairs/h100_seed{17,20,21,22,23,24,25,54,55}.csv.gz tile_pairs/h100_frontier_b32.csv)
held_h200=(current_kernels/rand13{2,3}.csv "$wg"/rand162_new.csv "$tc"/rand223_new.csv "${fresh_b2ad838[@]}")
held_h100=(trees/h100_trees_seed7{4,5}.csv)
chosen=(--chosen-with current_kernels/chosen_with.txt "${measured_before[@]}" current_kernels/rand13{2,3}.csv
        --chosen-with larger_trees/chosen_with_dcbb408.txt "${measured_dcbb408[@]}"
        --chosen-with "$wg"/chosen_with_d087224.txt "${measured_d087224[@]}" "$wg"/rand162_new.csv
        --chosen-with "$tc"/chosen_with_cf4297f.txt "${measured_cf4297f[@]}" "$tc"/rand223_new.csv
        --chosen-with "$wave"/chosen_with_6eb5073.txt "${measured_6eb5073[@]}"
        --chosen-with "$two"/chosen_with_21a6512.txt "${measured_21a6512[@]}"
        --chosen-with "$today"/chosen_with_b2ad838.txt "${measured_b2ad838[@]}" "${fresh_b2ad838[@]}")
options=(--tree-size 400 63 0.05 --small-batch-weight 30 --wgmma-forced "$forced"/rand15{4,5,6,7}_new.csv.gz
         --sixteen-tile-groups "${measured_before[@]}" "${measured_dcbb408[@]}" "${measured_d087224[@]}" "${measured_cf4297f[@]}"
         "${h100[@]}"
         --one-kronecker-table "${measured_before[@]}" "${measured_dcbb408[@]}" "${measured_d087224[@]}" "${measured_cf4297f[@]}"
         "${measured_6eb5073[@]}" "${h100[@]}"
         --unbalanced-groups "${measured_before[@]}" "${measured_dcbb408[@]}" "${measured_d087224[@]}" "${measured_cf4297f[@]}"
         "${measured_6eb5073[@]}" "${measured_21a6512[@]}" "${h100[@]}")
. ./run_fit.sh
