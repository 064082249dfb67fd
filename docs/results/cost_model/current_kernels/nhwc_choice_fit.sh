#!/usr/bin/env bash
# The offline check of a fitted per-shape choice between the fused kernels on NHWC images (docs/runtime.md,
# "AUTO refitted on data of today's kernels"): nhwc_choice_fit.patch applied to a temporary copy of the
# repository's fit_cost_model.py (--pair NORMAL FORCED: the forced file's NHWC wgmma rows join the normal
# file's shapes; WGF=nchw: the wgmma path's features gain an NCHW term; NO_WG_PICK=1: the choice ignores
# them; the check also prints the geometric mean of the chosen time over the fastest). Fits the training
# data of fit.sh less seeds 117 and 118, which are held out with their forced times, twice: without the
# forced data and choice (before), with them (after); prints each held-out summary.
# Usage (from the repository root): docs/results/cost_model/current_kernels/nhwc_choice_fit.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tools/device" && cp "$root/tools/device/fit_cost_model.py" "$work/tools/device/"
ln -s "$root/generated" "$work/generated" && ln -s "$root/runtime" "$work/runtime"
(cd "$work" && patch -s -p1 <"$root/docs/results/cost_model/current_kernels/nhwc_choice_fit.patch")
cd "$root/docs/results/cost_model"
E=../session26_final/auto_random C=current_kernels
train=("$E"/rand11{2,3,4,5,6,9}_new.csv.gz "$C"/rand1{26,27,28,29,30,31}.csv.gz "$C"/frontier_b{1,8,32}.csv)
h100=(tile_pairs/h100_seed{17,20,21,22,23,24,25,54,55}.csv.gz tile_pairs/h100_frontier_b32.csv)
held=("$E"/rand11{7,8}_new.csv.gz)
pairs=(--pair "$E/rand117_new.csv.gz" "$C/wg117.csv.gz" --pair "$E/rand118_new.csv.gz" "$C/wg118.csv.gz")
fit() {
  /usr/bin/python3 "$work/tools/device/fit_cost_model.py" "${train[@]}" "${h100[@]}" \
    --narrow-product "${train[@]}" "${h100[@]}" "${held[@]}" --bandwidth 3352.3 "${h100[@]}" \
    --chosen-with tile_pairs/chosen_with.txt --chosen-with "$C/chosen_with.txt" "${train[@]}" "${held[@]}" \
    "${pairs[@]}" "$@" --check "${held[@]}" | grep "held-out shapes, all"
}
echo "before: $(WGF=none NO_WG_PICK=1 fit)"
for s in 112 113 114 115 116; do pairs+=(--pair "$E/rand${s}_new.csv.gz" "$C/wg$s.csv.gz"); done
for b in 1 8 32; do pairs+=(--pair "$C/frontier_b$b.csv" "$C/wg_frontier_b$b.csv"); done
echo "after: $(WGF=nchw fit)"
