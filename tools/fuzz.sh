#!/usr/bin/env bash
# Fuzzes the config reader and the command-line parsers with libFuzzer, each for a bounded time (the two
# side by side), starting from the committed corpus in tests/fuzz/corpus/. The targets come from the
# AddressSanitizer build of tools/sanitize.sh (clang-19, AddressSanitizer and UndefinedBehaviorSanitizer,
# libFuzzer's coverage in every library: tools/sanitizer_build.sh), built here if they are not yet.
# Inputs it finds go to a scratch folder, not the committed corpus; a crash leaves its input in the
# build folder and fails the script.
# Usage: tools/fuzz.sh [SECONDS per target, default 60]
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/sanitizer_build.sh
seconds=${1:-60}
build=build-asan
sanitizer_build asan "nova_fuzz_config_json nova_fuzz_cli_arguments"
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
