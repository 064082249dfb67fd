#!/usr/bin/env bash
# Fuzzes the config reader and the command-line parsers with libFuzzer (clang-16, AddressSanitizer
# and UndefinedBehaviorSanitizer, coverage from every library), each for a bounded time (the two side
# by side), starting from the committed corpus in tests/fuzz/corpus/. Inputs it finds go to a scratch
# folder, not the committed corpus; a crash leaves its input in the build folder and fails the script.
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
# The two targets fuzz side by side: each is one process, so on CI's two cores neither waits.
targets=(config_json cli_arguments)
pids=()
for target in "${targets[@]}"; do
  mkdir -p "$build/fuzz-found/$target"
  (cd "$build" && "./tests/fuzz/nova_fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
     -print_final_stats=1 "$PWD/fuzz-found/$target" "$OLDPWD/tests/fuzz/corpus/$target" >"fuzz-$target.log" 2>&1) &
  pids+=($!)
done
failed=()
for i in "${!targets[@]}"; do
  wait "${pids[$i]}" || failed+=("${targets[$i]}")
done
for target in "${targets[@]}"; do
  echo "== fuzz $target for ${seconds}s"
  tail -12 "$build/fuzz-$target.log"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${failed[*]} failed (logs: $build/fuzz-TARGET.log; a crash leaves its input in $build)" >&2
  exit 1
fi
echo "fuzz: no crash, hang or sanitizer report"
