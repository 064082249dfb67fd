#!/usr/bin/env bash
# Compile time of a build folder from its ninja log (the last entry of each output): the total, the test
# programs' share (objects under tests/), the three kernel emulation sources, and the slowest objects; then,
# where nvcc is found, nvcc's phases (--time) for one kernel file for sm_90a as the compile check builds it.
# Usage (repository root): docs/results/ci_time/compile_times.sh BUILD_DIR [KERNEL_FILE]
set -euo pipefail
build=${1:?usage: compile_times.sh BUILD_DIR [KERNEL_FILE]}
kernels=${2:-generated/f4x3_standard_kernels.hip}
awk -F'\t' 'NR > 1 { t[$4] = ($2 - $1) / 1000 }
  END {
    for (o in t) { all += t[o]; if (o ~ /^tests\//) tests += t[o]; if (o ~ /_emulation\.cpp\.o$/) emu += t[o] }
    printf "%s: %.0f s of compile time, %.0f s of it the test programs (objects under tests/), %.0f s the kernel emulation sources\n",
           FILENAME, all, tests, emu
    for (o in t) printf "%8.1f %s\n", t[o], o | "sort -rn | head -12"
  }' "$build/.ninja_log"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ -x "$nvcc" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  "$nvcc" -x cu -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime/kernels/include -Iruntime/include \
    -Ijit/include -Iruntime/src -Itests -I"$(dirname "$kernels")" -c "$kernels" -o "$work/k.o" --time "$work/time.csv" >/dev/null 2>&1
  echo "nvcc phases for $kernels (sm_90a), ms:"
  awk -F' *, *' 'NR > 1 { printf "%10.0f %s\n", $(NF - 1), $2 }' "$work/time.csv"
fi
