#!/usr/bin/env bash
# The fiftieth session's fit of AUTO's cost model (fit.txt here), for the wgmma kernel's tensor-core launches whose
# tile groups are balanced over the grid's waves (fused_wgmma_kernels.hpp fused_wg_group_size, v5.35;
# gpu_cost_model.hpp wg_group_tiles: the wgmma features count an SM's groups and tiles of that launch). The data of
# the fortieth session's fit (../tc_two_tables/fit.sh), all of it measured before v5.35 with whole groups
# (--unbalanced-groups), fitted again with the features of today's generated transforms (their output operations
# changed with the forty-third session's balanced-units scaling since that fit). No new data: the device refused every
# call of this session. Held out as before: H200 seeds 132, 133, 162 and 223, H100 seeds 74 and 75 (scored with the
# runtime's launches, as the C++ test scores them).
# Usage (from the repository root): docs/results/balanced_choice/fit.sh [--write runtime/src/gpu_cost_fit.inc] [--cv 5]
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root/docs/results/cost_model"
s26=../session26_final/auto_random s27=../session27_final/auto_random wg=../wgmma_choice forced=../nhwc_wgmma_data
tc=../tc_choice wave=../wave_choice two=../tc_two_tables
measured_before=("$s26"/rand1{12,13,14,15,16,17,18,19,20,21}_new.csv.gz current_kernels/rand1{26,27,28,29,30,31}.csv.gz)
measured_dcbb408=("$s27"/rand1{34,35,36,37,38,39,40,41,42,43}_new.csv.gz)
measured_d087224=("$forced"/rand15{4,5,6,7}_new.csv.gz "$wg"/rand1{58,59,60,61}_new.csv.gz)
measured_cf4297f=("$tc"/rand2{19,20,21,22,24,25}_new.csv.gz)
measured_6eb5073=("$wave"/rand23{4,5,6,7,8}_new.csv.gz "$wave"/frontier_b1.csv.gz)
measured_21a6512=("$two"/rand24{3,4,5}_new.csv.gz "$two"/frontier_b{8,32}.csv.gz)
h200=("${measured_before[@]}" "${measured_dcbb408[@]}" "${measured_d087224[@]}" "${measured_cf4297f[@]}" "${measured_6eb5073[@]}"
      "${measured_21a6512[@]}")
h100=(tile_pairs/h100_seed{17,20,21,22,23,24,25,54,55}.csv.gz tile_pairs/h100_frontier_b32.csv)
held_h200=(current_kernels/rand13{2,3}.csv "$wg"/rand162_new.csv "$tc"/rand223_new.csv)
held_h100=(trees/h100_trees_seed7{4,5}.csv)
chosen=(--chosen-with current_kernels/chosen_with.txt "${measured_before[@]}" current_kernels/rand13{2,3}.csv
        --chosen-with larger_trees/chosen_with_dcbb408.txt "${measured_dcbb408[@]}"
        --chosen-with "$wg"/chosen_with_d087224.txt "${measured_d087224[@]}" "$wg"/rand162_new.csv
        --chosen-with "$tc"/chosen_with_cf4297f.txt "${measured_cf4297f[@]}" "$tc"/rand223_new.csv
        --chosen-with "$wave"/chosen_with_6eb5073.txt "${measured_6eb5073[@]}"
        --chosen-with "$two"/chosen_with_21a6512.txt "${measured_21a6512[@]}")
options=(--tree-size 400 63 0.05 --small-batch-weight 30 --wgmma-forced "$forced"/rand15{4,5,6,7}_new.csv.gz
         --sixteen-tile-groups "${measured_before[@]}" "${measured_dcbb408[@]}" "${measured_d087224[@]}" "${measured_cf4297f[@]}"
         "${h100[@]}"
         --one-kronecker-table "${measured_before[@]}" "${measured_dcbb408[@]}" "${measured_d087224[@]}" "${measured_cf4297f[@]}"
         "${measured_6eb5073[@]}" "${h100[@]}"
         --unbalanced-groups "${h200[@]}" "${h100[@]}")
# A later fit that sources this script (../balanced_data/fit.sh) adds its files here, after the options that mark
# this fit's data.
if declare -F extend_fit >/dev/null; then extend_fit; fi
. ./run_fit.sh
