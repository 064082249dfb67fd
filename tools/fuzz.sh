#!/usr/bin/env bash
# Fuzzes the config reader and the command-line parsers with libFuzzer (clang-16, AddressSanitizer
# and UndefinedBehaviorSanitizer, coverage from every library), each for a bounded time, starting
# from the committed corpus in tests/fuzz/corpus/. Inputs it finds go to a scratch folder, not the
# committed corpus; a crash leaves its input in the build folder and fails the script.
# Usage: tools/fuzz.sh [SECONDS per target, default 60]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${NOVA_FUZZ_BUILD_DIR:-build-fuzz}
clang=$(command -v clang++-16) || { echo "fuzz: clang++-16 is required (tools/setup.sh installs it)" >&2; exit 1; }
sanitizers="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$clang" \
  -DCMAKE_CXX_FLAGS="$sanitizers" -DNOVA_FUZZ=ON -DNOVA_BUILD_TESTS=ON >/dev/null
cmake --build "$build" -j "$(nproc)" --target nova_fuzz_config_json nova_fuzz_cli_arguments
for target in config_json cli_arguments; do
  found="$build/fuzz-found/$target"
  mkdir -p "$found"
  echo "== fuzz $target for ${seconds}s"
  (cd "$build" && "./tests/fuzz/nova_fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
     -print_final_stats=1 "$PWD/fuzz-found/$target" "$OLDPWD/tests/fuzz/corpus/$target" 2>&1 | tail -12)
done
echo "fuzz: no crash, hang or sanitizer report"
