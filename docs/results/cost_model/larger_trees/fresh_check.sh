#!/usr/bin/env bash
# The previous fit (../current_kernels/fit.sh: trees of 31 leaves, fourteen H200 seeds) and this one
# (fit.sh here) on the 3,000 fresh shapes that the device measured with this fit's build
# (../../session28_final/auto_random/, seeds 144-153), offline: how often each fit's choice is within
# 10 % of the fastest configuration, per seed and together (fresh_check.txt). The device's own count (AUTO timed in turns)
# is in each seed's log.
# Usage (from the repository root): docs/results/cost_model/larger_trees/fresh_check.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fresh=(../session28_final/auto_random/rand1{44,45,46,47,48,49,50,51,52,53}_new.csv.gz)
export FRESH="${fresh[*]}"
for fit in current_kernels larger_trees; do
  echo "== $fit/fit.sh"
  "$here/../$fit/fit.sh" | grep -E "^held-out shapes of rand1(4[4-9]|5[0-3])" |
    awk '{ print; split($0, a, " on "); split(a[2], n, " "); within += n[1]; shapes += n[3] } END { print "fresh shapes: within 10% on " within " of " shapes }'
done
