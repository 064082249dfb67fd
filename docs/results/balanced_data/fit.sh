#!/usr/bin/env bash
# The fifty-first session's fit of AUTO's cost model (fit.txt here): the fiftieth session's fit
# (../balanced_choice/fit.sh, sourced) with data measured by today's kernels added, the build of b2ad838 that runs the
# wgmma kernel's balanced tile groups (so these files are not marked --unbalanced-groups): the benchmark layers at
# batches 1, 8 and 32 and four random sets (seeds 279 and 280 with C = 64, 281 and 282 free), all by
# tools/device/cost_model_data.sh. Held out as before (H200 seeds 132, 133, 162 and 223, H100 seeds 74 and 75), and
# two fresh sets of the same build: seed 277 (C = 64) and 278 (free), which auto_random.sh measured with AUTO.
# PREVIOUS=1 leaves today's files out of the fit, which then reproduces the fiftieth session's, and checks that fit
# on all six of today's sets (previous_fit.txt).
# Usage (from the repository root): [PREVIOUS=1] docs/results/balanced_data/fit.sh [--write runtime/src/gpu_cost_fit.inc] [--cv 5]
set -euo pipefail
add_todays_files() {
  local today=../balanced_data
  local measured=("$today"/rand2{79,80,81,82}_new.csv.gz "$today"/frontier_b{1,8,32}.csv.gz)
  local fresh=("$today"/rand27{7,8}_new.csv)
  if [ "${PREVIOUS:-}" = 1 ]; then
    fresh+=("${measured[@]::4}")
    measured=()
  fi
  h200+=("${measured[@]}")
  held_h200+=("${fresh[@]}")
  chosen+=(--chosen-with "$today"/chosen_with_b2ad838.txt "${measured[@]}" "${fresh[@]}")
}
fit_extensions=(add_todays_files ${fit_extensions[@]+"${fit_extensions[@]}"})
. "$(dirname "${BASH_SOURCE[0]}")/../balanced_choice/fit.sh"
