#!/usr/bin/env bash
# Every CPU test under AddressSanitizer + UndefinedBehaviorSanitizer, then the tests that run
# threads (tag [threads], ctest label `threads`) under ThreadSanitizer, from the one program that
# holds their source files (nova_threads_tests); GCC, any report fails the script. The compile
# checks and the builds of the runtime alone and of the installed example (uninstrumented programs
# against the instrumented library) are left to the ordinary build (tools/test.sh). The kernel
# emulation runs here on the representative transforms, one of each kind (NOVA_EMULATE_REPRESENTATIVE;
# the transforms of a kind share every index computation); NOVA_QUICK=1 tools/test.sh emulates all.
# Usage: tools/sanitize.sh [asan|tsan]   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
which=${1:-all}
flags="-fno-omit-frame-pointer -fno-sanitize-recover=all"
# -O1 and line tables only: the AddressSanitizer step takes 653 s instead of 812 s at -O2 -g on two
# cores, and reports still name file and line (-O0 compiles faster still but runs slower: 745 s).
optimise="-O1 -g1 -DNDEBUG"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

configure_and_build() {  # name, sanitizer flags, targets to build ("" for all)
  local build=build-$1 sanitizer=$2 targets=$3
  echo "== $build: $sanitizer"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$optimise" \
    -DNOVA_EMULATE_REPRESENTATIVE=ON \
    -DCMAKE_CXX_FLAGS="$sanitizer $flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$sanitizer" -DCMAKE_SHARED_LINKER_FLAGS="$sanitizer" >/dev/null
  cmake --build "$build" -j "$jobs" ${targets:+--target $targets}
}

if [ "$which" != tsan ]; then
  configure_and_build asan "-fsanitize=address,undefined" ""
  # That test forks two compiler processes from two threads; at its exit LeakSanitizer's own tracer
  # crashed ("Tracer caught signal 11", after every assertion passed) in 2 of 4 CI runs of
  # 2026-11-26. It runs under ASan and UBSan without the leak check, beside the others (alone after
  # them it took 46 s of a two-core CI run).
  log=build-asan/two_processes.log
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 ctest --test-dir build-asan --output-on-failure -R '^two processes compiling ' \
    >"$log" 2>&1 &
  two_processes=$!
  status=0
  ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE compile-check \
    -E '^(runtime[.]builds_alone|runtime_example_find_package|pytorch[.].*|two processes compiling .*)$' || status=$?
  wait "$two_processes" || status=$?
  cat "$log"
  [ "$status" = 0 ] || exit "$status"
fi
if [ "$which" != asan ]; then
  configure_and_build tsan "-fsanitize=thread" nova_threads_tests
  (cd build-tsan/tests && timeout 600 ./nova_threads_tests "[threads]")
fi
