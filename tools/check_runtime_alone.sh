#!/usr/bin/env bash
# Builds libnova_runtime alone, as a user on a GPU server or in a container would
# (-DNOVA_BUILD_TOOLS=OFF, the committed generated/), and shows that it needs nothing of the exact
# core's toolchain:
#   1. CMake may not find Boost, nlohmann_json or CLI11 (CMAKE_DISABLE_FIND_PACKAGE_*);
#   2. no header the compiler opened for any object (ninja's dependency log) is Boost, GMP, MPFR,
#      nlohmann_json or CLI11;
#   3. neither the link line nor `ldd libnova_runtime.so` names GMP, MPFR or Boost;
#   4. the example program links it and runs a convolution against the FP64 reference.
# A ctest test (runtime.builds_alone); also usable by hand. Extra arguments go to the configure
# step (for example -DNOVA_ENABLE_CUDA=ON).
# Usage: tools/check_runtime_alone.sh BUILD_DIR [cmake args...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: check_runtime_alone.sh BUILD_DIR [cmake args...]}
shift
forbidden='boost/|/gmp[^/]*\.h|/mpfr[^/]*\.h|nlohmann/|/CLI/|libgmp|libmpfr|libboost'

rm -rf "$build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNOVA_WARNINGS_AS_ERRORS=ON \
  -DNOVA_BUILD_TOOLS=OFF -DNOVA_BUILD_TESTS=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_Boost=ON -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON --no-warn-unused-cli "$@" >"$build.configure.log" ||
  { cat "$build.configure.log"; echo "FAIL: configure"; exit 1; }
cmake --build "$build" --target nova_runtime nova_conv_example >"$build.build.log" 2>&1 ||
  { cat "$build.build.log"; echo "FAIL: build"; exit 1; }

headers=$(ninja -C "$build" -t deps | grep -E '^ +/' | sort -u)
echo "runtime alone: $(echo "$headers" | wc -l) distinct headers opened"
if bad=$(echo "$headers" | grep -E "$forbidden"); then
  echo "FAIL: the runtime's objects include a header of the exact core's toolchain:"
  echo "$bad" | head -20
  exit 1
fi

library=$(find "$build/runtime" -maxdepth 1 -name 'libnova_runtime.so*' -type f | head -1)
link_line=$(ninja -C "$build" -t commands nova_runtime | tail -1)
if echo "$link_line" | grep -Eq "$forbidden|-lgmp|-lmpfr"; then
  echo "FAIL: the link line names GMP, MPFR or Boost: $link_line"
  exit 1
fi
if ldd "$library" | grep -Eq 'gmp|mpfr|boost'; then
  echo "FAIL: ldd $library:"
  ldd "$library"
  exit 1
fi
echo "ldd $(basename "$library"):"
ldd "$library" | sed 's/^/  /'

"$build/runtime/examples/conv_example/nova_conv_example"
echo "OK: libnova_runtime builds and runs without GMP, MPFR, Boost, CLI11 or nlohmann_json"
