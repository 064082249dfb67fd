#!/usr/bin/env bash
# Construction + exact verification + all metrics, per tile F(2,3) ... F(16,3).
# Usage: tools/bench/bench_exact_core.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
cmake --build "$build" --target nova-bench-exact-core >/dev/null
"$build/tools/bench/nova-bench-exact-core"
