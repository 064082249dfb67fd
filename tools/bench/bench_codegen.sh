#!/usr/bin/env bash
# Wall time of nova-codegen (exact re-verification + emission) per config and for all of them.
# Usage: tools/bench/bench_codegen.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
cmake --build "$build" --target nova-codegen >/dev/null
codegen="$build/codegen/nova-codegen"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); }
printf '%-24s %8s\n' config "ms"
for config in configs/*.json; do
  printf '%-24s %8s\n' "$(basename "$config" .json)" "$(ms "$codegen" --quiet "$config" --out "$out")"
done
printf '%-24s %8s\n' "all $(ls configs/*.json | wc -l) configs" "$(ms "$codegen" --quiet configs/*.json --out "$out")"
