# The sanitizer builds of tools/sanitize.sh and tools/fuzz.sh, sourced by both so that they configure
# build-asan alike and neither rebuilds what the other built. clang-19, which libFuzzer needs (GCC's build took
# about as long: docs/results/ci_time/), -O1 with line tables: reports still name file and line (-O2 -g made
# the step 812 s instead of 653 s with GCC, -O0 ran the tests slower). The AddressSanitizer build carries
# libFuzzer's coverage (fuzzer-no-link) in every library and links the fuzz targets (NOVA_FUZZ), which fuzz
# what the tests have just run.
# Usage (sourced, from the repository root): sanitizer_build asan|tsan "TARGETS" ("" for all)

sanitizer_build() {
  local which=$1 targets=$2 build=build-$1 sanitizer coverage="" fuzz=OFF clang
  clang=$(command -v clang++-19) || { echo "sanitizers: clang++-19 is required (tools/setup.sh installs it)" >&2; return 1; }
  case $which in
    asan) sanitizer="-fsanitize=address,undefined" coverage="-fsanitize=fuzzer-no-link" fuzz=ON ;;
    tsan) sanitizer="-fsanitize=thread" ;;
    *) echo "sanitizer_build: asan or tsan, not '$which'" >&2; return 2 ;;
  esac
  echo "== $build: $sanitizer"
  cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$clang" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DNOVA_EMULATE_REPRESENTATIVE=ON -DNOVA_FUZZ=$fuzz \
    -DCMAKE_CXX_FLAGS="$sanitizer $coverage -fno-omit-frame-pointer -fno-sanitize-recover=all" \
    -DCMAKE_EXE_LINKER_FLAGS="$sanitizer" -DCMAKE_SHARED_LINKER_FLAGS="$sanitizer" >/dev/null
  cmake --build "$build" -j "$(nproc)" ${targets:+--target $targets}
}
