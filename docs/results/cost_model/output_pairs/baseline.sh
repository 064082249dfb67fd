#!/usr/bin/env bash
# The committed fit (its arguments as gpu_cost_fit.inc's banner at commit 872702e gives them) refitted
# by this session's script, checked on this session's held-out shapes (output_pairs/baseline.txt):
# the model before the refit, offline, on the same files as output_pairs/fit.sh's check.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$root/docs/results/cost_model"
h200=(tile_pairs/seed{26,27,28,29,30,31,32,40,41,42,43,50,51,52,53,60,61,62,63}.csv.gz tile_pairs/frontier_b{1,8,32}.csv)
h100=(tile_pairs/h100_seed{17,20,21,22,23,24,25,54,55}.csv.gz tile_pairs/h100_frontier_b32.csv)
held_h200=(output_pairs/seed{105,106}.csv.gz ../nchw_output_pairs/final/rand9{7,8}_new.csv)
held_h100=(../nchw_output_pairs/h100/rand99_base.csv)
/usr/bin/python3 "$root/tools/device/fit_cost_model.py" "${h200[@]}" "${h100[@]}" \
  --narrow-product "${h200[@]}" "${h100[@]}" "${held_h200[@]}" "${held_h100[@]}" \
  --output-pairs "${held_h200[@]}" "${held_h100[@]}" \
  --bandwidth 3352.3 "${h100[@]}" "${held_h100[@]}" --chosen-with tile_pairs/chosen_with.txt \
  --check "${held_h200[@]}" "${held_h100[@]}" --write /tmp/baseline_fit.inc
