#!/usr/bin/env bash
# The project's test command (README, and .ci/run): set up, configure with warnings as errors,
# build, run every test (GPU tests skip cleanly on a machine without a GPU); then every CPU test
# again under ASan + UBSan and the threading tests under TSan (tools/sanitize.sh), and the fuzz
# targets for a bounded time (tools/fuzz.sh). NOVA_QUICK=1 stops after the first ctest run.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
build=${NOVA_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNOVA_WARNINGS_AS_ERRORS=ON
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
[ "${NOVA_QUICK:-0}" = 1 ] && exit 0
tools/sanitize.sh
tools/fuzz.sh "${NOVA_FUZZ_SECONDS:-60}"
