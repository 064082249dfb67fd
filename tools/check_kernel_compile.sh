#!/usr/bin/env bash
# Compile-checks one generated kernel file without a GPU (a ctest test; exit 77 = skipped).
#   nvcc-sm90    nvcc for sm_90a (the build's target: wgmma) through nova/kernels/hip_compat.h, device
#                and host code
#   hip-gfx940   clang-16 -x hip, device code for CDNA3 (MI300's ISA), wave64
#   hip-gfx1100  clang-16 -x hip, device code for RDNA3, wave32
#   hip-host     clang-16 -x hip, the host launchers against Debian's HIP headers
# Warnings are errors in every mode.
# Usage: tools/check_kernel_compile.sh MODE COMPILER FILE   (COMPILER empty: skip)
set -euo pipefail
mode=$1 compiler=$2 file=$3
if [ -z "$compiler" ] || ! command -v "$compiler" >/dev/null; then
  echo "SKIP: no compiler for $mode"
  exit 77
fi
root=$(cd "$(dirname "$0")/.." && pwd)
includes=(-I"$root/runtime/kernels/include" -I"$root/runtime/include" -I"$root/jit/include" -I"$root/runtime/src" -I"$root/tests"
          -I"$(dirname "$file")")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

hip=(-x hip -std=c++20 -O3 -nogpulib -Wall -Wextra -Werror "${includes[@]}")
case $mode in
  nvcc-sm90)
    "$compiler" -x cu -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror \
      "${includes[@]}" -c "$file" -o "$work/kernels.o" ;;
  hip-gfx940 | hip-gfx1100)
    # -S: full code generation to ISA assembly without the AMD linker (Debian's lld lacks it).
    "$compiler" "${hip[@]}" --cuda-device-only --offload-arch="${mode#hip-}" -S "$file" -o "$work/kernels.s"
    # A file that defines kernels must have produced their ISA (register counts in the metadata).
    if grep -q "__global__" "$file"; then grep -q "\.vgpr_count" "$work/kernels.s"; fi ;;
  hip-host)
    "$compiler" "${hip[@]}" --cuda-host-only --offload-arch=gfx940 -c "$file" -o "$work/kernels.o" ;;
  *)
    echo "unknown mode '$mode'" >&2
    exit 2 ;;
esac
echo "OK: $mode $(basename "$file")"
