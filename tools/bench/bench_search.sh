#!/usr/bin/env bash
# Times nova-discover's full search pipeline (symmetric search, ES, snapping, neighbourhood search,
# exact verification, baselines table, JSON) per tile, with one thread and with every core, beside
# the single-core times of paper Table 22; then runs five seeds per tile for the reproducibility
# table (paper Table 24). Each time is the fastest of --repeat runs (the machine may be shared);
# CPU is user + system time of that run.
# Usage: tools/bench/bench_search.sh [--repeat N] [path/to/nova-discover]
set -euo pipefail
repeat=3
if [[ ${1:-} == --repeat ]]; then repeat=$2; shift 2; fi
discover=$(realpath "${1:-build/discover/nova-discover}")
cores=$(nproc)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# best_of ARGS...: prints "wall cpu" (seconds) of the fastest of $repeat runs.
best_of() {
  local best_wall= best_cpu= t wall user sys i
  for ((i = 0; i < repeat; i++)); do
    t=$( { TIMEFORMAT='%R %U %S'; time "$discover" "$@" --out "$scratch/out.json" >/dev/null 2>&1; } 2>&1 )
    read -r wall user sys <<<"$t"
    if [[ -z $best_wall ]] || awk -v a="$wall" -v b="$best_wall" 'BEGIN { exit !(a < b) }'; then
      best_wall=$wall
      best_cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')
    fi
  done
  printf '%s %s' "$best_wall" "$best_cpu"
}

# Paper Table 22 (single CPU core, Python): total discovery time per tile.
declare -A paper=([2,3]="0.1" [4,3]="0.5" [6,3]="2" [8,3]="60" [4,5]="-" [6,5]="-")

echo "nova-discover search wall time (s), best of $repeat; machine: $cores cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %-10s %-24s %-10s %-10s %s\n' tile objective "paper Table 22 (1 core)" "1 thread" "(CPU)" "$cores threads"
for objective in kappa fp16; do
  for tile in 2,3 4,3 6,3 8,3 4,5 6,5; do
    [[ $objective == fp16 && $tile == *,5 ]] && continue
    read -r wall1 cpu1 <<<"$(best_of --tile "$tile" --objective "$objective" --threads 1)"
    read -r wallN _ <<<"$(best_of --tile "$tile" --objective "$objective" --threads "$cores")"
    reference=${paper[$tile]}
    [[ $objective == fp16 ]] && reference="-"
    printf '%-8s %-10s %-24s %-10s %-10s %s\n' "F($tile)" "$objective" "$reference" "$wall1" "$cpu1" "$wallN"
  done
done

echo
echo "kappa2(V) over seeds 1-5, objective kappa (paper Table 24: F(4,3) CV 0.0%, F(6,3) 2.3%, F(8,3) 2.6%)"
printf '%-8s %-10s %-10s %-8s %-10s %-10s %s\n' tile mean std "CV (%)" min max "distinct sets"
for tile in 4,3 6,3 8,3 4,5 6,5; do
  kappas=() sets=()
  for seed in 1 2 3 4 5; do
    json=$("$discover" --tile "$tile" --seed "$seed" --dry-run --quiet --format json)
    kappas+=("$(grep -o '"kappa2_V":[0-9.e+-]*' <<<"$json" | cut -d: -f2)")
    sets+=("$(grep -o '"points": \[[^]]*\]' <<<"$json")")
  done
  distinct=$(printf '%s\n' "${sets[@]}" | sort -u | wc -l)
  printf '%s\n' "${kappas[@]}" | awk -v tile="F($tile)" -v distinct="$distinct" '
    { x[NR] = $1; sum += $1; if (NR == 1 || $1 < lo) lo = $1; if (NR == 1 || $1 > hi) hi = $1 }
    END { mean = sum / NR; for (i = 1; i <= NR; i++) ss += (x[i] - mean) ^ 2; sd = sqrt(ss / (NR - 1));
          printf "%-8s %-10.4g %-10.3g %-8.2f %-10.4g %-10.4g %d\n", tile, mean, sd, 100 * sd / mean, lo, hi, distinct }'
done
