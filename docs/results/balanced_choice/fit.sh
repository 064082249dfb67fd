#!/usr/bin/env bash
# The fiftieth session's fit of AUTO's cost model (fit.txt here), for the wgmma kernel's tensor-core launches whose
# tile groups are balanced over the grid's waves (fused_wgmma_kernels.hpp fused_wg_group_size, v5.35;
# gpu_cost_model.hpp wg_group_tiles: the wgmma features count an SM's groups and tiles of that launch). The data of
# the fortieth session's fit (../tc_two_tables/fit.sh, sourced), all of it measured before v5.35 with whole groups
# (--unbalanced-groups), fitted again with the features of today's generated transforms (their output operations
# changed with the forty-third session's balanced-units scaling since that fit). No new data: the device refused every
# call of this session. Held out as before: H200 seeds 132, 133, 162 and 223, H100 seeds 74 and 75 (scored with the
# runtime's launches, as the C++ test scores them).
# Usage (from the repository root): docs/results/balanced_choice/fit.sh [--write runtime/src/gpu_cost_fit.inc] [--cv 5]
set -euo pipefail
mark_unbalanced_groups() { options+=(--unbalanced-groups "${h200[@]}" "${h100[@]}"); }
fit_extensions=(mark_unbalanced_groups ${fit_extensions[@]+"${fit_extensions[@]}"})
. "$(dirname "${BASH_SOURCE[0]}")/../tc_two_tables/fit.sh"
