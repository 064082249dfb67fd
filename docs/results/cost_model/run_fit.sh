# Sourced by the fit scripts here (current_kernels/: fit.sh, tree_size.sh, previous_fit_check.sh;
# larger_trees/fit.sh) once they have named, from
# docs/results/cost_model/: h200 and h100 (the training files; the H100's measured at 3,352 GB/s), held_h200
# and held_h100 (checked, not fitted), chosen (their --chosen-with groups: the kFusedCoefficients of the
# build that measured each file; the rest tile_pairs/chosen_with.txt's) and options (further options of
# fit_cost_model.py), with $root the repository. The script's own arguments follow (--write
# runtime/src/gpu_cost_fit.inc, --cv 5); FRESH in the environment names more held-out files to check
# (larger_trees/fresh_check.sh).
# A fit script that sources an earlier one (../balanced_choice/fit.sh sources ../tc_two_tables/fit.sh) changes its
# lists by functions it names in fit_extensions, run here in order: each script puts its own before those of the
# scripts that source it, so that a fit's options see its own files and not a later fit's.
for extension in ${fit_extensions[@]+"${fit_extensions[@]}"}; do "$extension"; done
# shellcheck disable=SC2206  # FRESH is a list of paths without spaces
fresh=(${FRESH:-})
args=()
for a in "$@"; do [[ $a == runtime/* ]] && args+=("../../../$a") || args+=("$a"); done
/usr/bin/python3 "$root/tools/device/fit_cost_model.py" "${h200[@]}" "${h100[@]}" \
  --narrow-product "${h200[@]}" "${h100[@]}" "${held_h200[@]}" "${held_h100[@]}" "${fresh[@]}" \
  --bandwidth 3352.3 "${h100[@]}" "${held_h100[@]}" \
  --chosen-with tile_pairs/chosen_with.txt "${chosen[@]}" \
  --check "${held_h200[@]}" "${held_h100[@]}" "${fresh[@]}" "${options[@]}" "${args[@]}"
