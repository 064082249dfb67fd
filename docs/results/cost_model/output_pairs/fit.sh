#!/usr/bin/env bash
# The seventeenth session's fit of AUTO's cost model (output_pairs/fit.txt): the training data of the
# committed fit (tile_pairs/, measured before the NCHW output transform took tile pairs) with its
# H200 benchmark layers replaced by this session's (output_pairs/frontier_b*.csv) and five fresh H200
# seeds (100-104) measured by the build with the output tile pairs; held out: seeds 105 and 106 and the
# sixteenth session's seeds 97 and 98 (H200) and 99 (H100), all measured by that build.
# Usage (from the repository root): docs/results/cost_model/output_pairs/fit.sh [--write runtime/src/gpu_cost_fit.inc] [--cv 5]
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$root/docs/results/cost_model"
old_h200=(tile_pairs/seed{26,27,28,29,30,31,32,40,41,42,43,50,51,52,53,60,61,62,63}.csv.gz)
old_h100=(tile_pairs/h100_seed{17,20,21,22,23,24,25,54,55}.csv.gz tile_pairs/h100_frontier_b32.csv)
new=(output_pairs/seed{100,101,102,103,104}.csv.gz output_pairs/frontier_b{1,8,32}.csv)
held_h200=(output_pairs/seed{105,106}.csv.gz ../nchw_output_pairs/final/rand9{7,8}_new.csv)
held_h100=(../nchw_output_pairs/h100/rand99_base.csv)
args=()
for a in "$@"; do [[ $a == runtime/* ]] && args+=("../../../$a") || args+=("$a"); done
/usr/bin/python3 "$root/tools/device/fit_cost_model.py" "${old_h200[@]}" "${old_h100[@]}" "${new[@]}" \
  --narrow-product "${old_h200[@]}" "${old_h100[@]}" "${new[@]}" "${held_h200[@]}" "${held_h100[@]}" \
  --output-pairs "${new[@]}" "${held_h200[@]}" "${held_h100[@]}" \
  --bandwidth 3352.3 "${old_h100[@]}" "${held_h100[@]}" \
  --chosen-with tile_pairs/chosen_with.txt --chosen-with output_pairs/chosen_with.txt "${new[@]}" \
  --check "${held_h200[@]}" "${held_h100[@]}" "${args[@]}"
