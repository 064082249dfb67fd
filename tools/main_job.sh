#!/usr/bin/env bash
# The main job end to end: set up, build, evaluate the paper's F(6,3) points exactly (table + JSON),
# then re-verify every shipped config.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
build=${NOVA_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNOVA_WARNINGS_AS_ERRORS=ON >/dev/null
cmake --build "$build" -j "$(nproc)"
out=${NOVA_OUT_DIR:-$build/out}
mkdir -p "$out"

echo "== discover: F(6,3) with the paper's points, exact verification, metrics"
"$build/discover/nova-discover" --tile 6,3 --points 0,3/5,-3/5,1,-1,7/6,-7/6 --name nova --verify-2d \
  --out "$out/f6x3_nova.json"
echo "== verify: every config in configs/"
"$build/discover/nova-discover" verify configs/*.json
