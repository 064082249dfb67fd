#!/usr/bin/env bash
# The project's test command (README, and .ci/run): set up, configure with warnings as errors,
# build, run every test (GPU tests skip cleanly on a machine without a GPU); then every CPU test
# again under ASan + UBSan and the threading tests under TSan (tools/sanitize.sh), and the fuzz
# targets for a bounded time (tools/fuzz.sh). The stages' unit tests, the kernel emulation of the
# representative transforms among them, run once, in the sanitizer build; the plain build runs the compile
# checks and the integration tests (docs/results/ci_time/). NOVA_QUICK=1 builds and runs every test, the
# emulation of every transform included, in the plain build and stops there.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
build=${NOVA_BUILD_DIR:-build}
quick=${NOVA_QUICK:-0}
unit_tests=OFF
[ "$quick" = 1 ] && unit_tests=ON
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNOVA_WARNINGS_AS_ERRORS=ON -DNOVA_UNIT_TESTS=$unit_tests
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
[ "$quick" = 1 ] && exit 0
tools/sanitize.sh
tools/fuzz.sh "${NOVA_FUZZ_SECONDS:-60}"
