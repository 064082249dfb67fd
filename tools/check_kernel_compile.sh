#!/usr/bin/env bash
# Compile-checks one kernel file without a GPU (a ctest test; exit 77 = skipped).
#   nvcc-sm90    nvcc for sm_90a (the build's target: wgmma) through nova/kernels/hip_compat.h, device
#                and host code; fails where ptxas serialises the wgmma kernels' products, where a
#                kernel spills or keeps a stack frame, or where its registers, spills, stack or shared
#                memory differ from docs/results/kernel_resources.md (made by the same nvcc)
#   nvcc-sm90-fast  the same through nvcc's fastest device compile (--Ofast-compile=max): every template
#                instantiated, the PTX assembled to sm_90a code, in about a quarter of the time (an F(4,3)
#                kernel file: 15 s against 71); the code differs from the build's, so ptxas's notes on
#                the wgmma products are not checked (the representative files keep nvcc-sm90)
#   hip-gfx942   clang-19 -x hip, device code for MI300X (CDNA3), wave64
#   hip-gfx90a   clang-19 -x hip, device code for MI200 (CDNA2), wave64
#   hip-gfx1100  clang-19 -x hip, device code for RDNA3, wave32
#   hip-host     clang-19 -x hip, the host launchers against Debian's HIP headers
# Warnings are errors in every mode. The device modes link ROCm's device libraries (Debian's
# rocm-device-libs, or NOVA_ROCM_BITCODE) as a ROCm build does: Debian's HIP headers reach threadIdx,
# blockDim and __syncthreads through them, and left unresolved those calls would inflate the
# register counts and give every kernel a dynamic stack; a call that stays unresolved fails the
# check. On the MFMA targets (gfx90a, gfx942) every kernel whose symbol contains `_fused_mfma_` must
# use no scratch (no private segment, dynamic stack or spills) and run a v_mfma in its own body.
# NOVA_KERNEL_TABLE=FILE: a device mode also writes one line per kernel to FILE (tab-separated:
# name vgpr_count agpr_count sgpr_count group_segment_fixed_size private_segment_fixed_size
# uses_dynamic_stack vgpr_spill_count sgpr_spill_count wavefront_size v_mfma-count), from the code
# object metadata in the assembly (tools/amd_kernel_resources.sh); NOVA_KERNEL_ASM=FILE keeps the
# assembly itself (tools/amd/predict_mi300x.sh counts its instructions).
# Usage: tools/check_kernel_compile.sh MODE COMPILER FILE   (COMPILER empty: skip)
set -euo pipefail
mode=$1 compiler=$2 file=$3
if [ -z "$compiler" ] || ! command -v "$compiler" >/dev/null; then
  case $mode in
    nvcc-*) echo "SKIP: no compiler for $mode (nvcc, the CUDA toolkit)" ;;
    *) echo "SKIP: no compiler for $mode (clang-19: apt-get install clang-19 rocm-device-libs libamdhip64-dev)" ;;
  esac
  exit 77
fi
root=$(cd "$(dirname "$0")/.." && pwd)
includes=(-I"$root/runtime/kernels/include" -I"$root/runtime/include" -I"$root/jit/include" -I"$root/runtime/src" -I"$root/tests"
          -I"$(dirname "$file")")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

hip=(-x hip -std=c++20 -O3 -nogpulib -Wall -Wextra -Werror "${includes[@]}")
case $mode in
  nvcc-sm90 | nvcc-sm90-fast)
    # the fast mode: nvcc's fastest device compile; the full one: ptxas's resources a kernel, for the
    # spill gate below (lines that only it prints, kept out of the output)
    flags=(--resource-usage)
    [ "$mode" = nvcc-sm90-fast ] && flags=(--Ofast-compile=max)
    "$compiler" -x cu -std=c++20 -O3 "${flags[@]}" -gencode=arch=compute_90a,code=sm_90a -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror \
      "${includes[@]}" -c "$file" -o "$work/kernels.o" 2>&1 | tee "$work/nvcc.log" |
      { grep -Ev "^ptxas info +: (Compiling entry function|Function properties for|Used [0-9]+ registers|Compile time =|[0-9]+ bytes gmem)|^ +[0-9]+ bytes stack frame" || true; }
    # ptxas's notes on the wgmma kernels: a product pipeline it serialised (C7510-C7515) or a wait it
    # injected (C7517) runs correctly and slowly (docs/performance.md, "Fused v5.6"), so it fails here;
    # not in the fast mode, which calls the functions the build inlines and serialises every product.
    if [ "$mode" = nvcc-sm90 ] && grep -E "wgmma.mma_async instructions are serialized|warpgroup.wait is injected" "$work/nvcc.log" >/dev/null; then
      echo "FAIL: ptxas serialised wgmma products or injected a wait in $file (lines above)"
      exit 1
    fi
    # The spill gate: no kernel of the build's code spills or keeps a stack frame
    # (docs/results/kernel_resources.md).
    if [ "$mode" = nvcc-sm90 ]; then
      spilled=$(awk '/Function properties for/ { name = $NF }
                     /bytes stack frame/ && ($1 + $5 + $9 > 0) {
                       print "spill gate: " name ": " $1 " B stack, " $5 " B spill stores, " $9 " B spill loads" }' \
                "$work/nvcc.log")
      if [ -n "$spilled" ]; then
        echo "$spilled"
        echo "FAIL: kernels of $file spill or keep a stack frame (lines above)"
        exit 1
      fi
      # The register gate: each kernel keeps the resources docs/results/kernel_resources.md records for it, where
      # this nvcc made that table (a change elsewhere once moved the mma.sync kernels' registers and cost them 31-38 %:
      # docs/performance.md, "Fused v5.38"). A change that moves them regenerates the table (tools/kernel_resources.sh).
      # NOVA_KERNEL_RESOURCES: another table (the gate's test).
      table=${NOVA_KERNEL_RESOURCES:-$root/docs/results/kernel_resources.md}
      if [ -f "$table" ] && grep -qxF "ptxas of: $("$compiler" --version | tail -1)" "$table"; then
        moved=$("$root/tools/ptxas_rows.sh" <"$work/nvcc.log" | awk -F' [|] ' -v table="$table" '
          BEGIN { while ((getline line < table) > 0) { split(line, f, " [|] "); recorded[f[1] " | " f[2]] = line } }
          { key = $1 " | " $2 }
          key in recorded && recorded[key] != $0 {
            name = key
            sub(/^[|] /, "", name)
            print "register gate: " name ": now " $0 " the table " recorded[key] }')
        if [ -n "$moved" ]; then
          echo "$moved"
          echo "FAIL: kernels of $file moved from $table (lines above; regenerate it if the change means to)"
          exit 1
        fi
      fi
    fi ;;
  hip-gfx942 | hip-gfx90a | hip-gfx1100)
    arch=${mode#hip-}
    bitcode=${NOVA_ROCM_BITCODE:-/usr/lib/x86_64-linux-gnu/amdgcn/bitcode}
    if [ ! -f "$bitcode/ockl.bc" ]; then
      echo "SKIP: no ROCm device libraries in $bitcode (apt-get install rocm-device-libs)"
      exit 77
    fi
    # The libraries the clang driver links for HIP at -O3 without fast math, less the ISA version
    # (Debian's set, ROCm 5.2, has none for gfx942 or gfx1100): code that needs it stays unresolved
    # and fails below. Only what the code calls is linked.
    [ "$arch" = gfx1100 ] && wave64=off || wave64=on
    libraries=()
    for library in hip ocml ockl oclc_abi_version_500 oclc_correctly_rounded_sqrt_on oclc_daz_opt_off oclc_finite_only_off \
                   oclc_unsafe_math_off "oclc_wavefrontsize64_$wave64"; do
      libraries+=(-Xclang -mlink-builtin-bitcode -Xclang "$bitcode/$library.bc")
    done
    # -S: full code generation to ISA assembly, code object metadata included, without the AMD linker.
    "$compiler" "${hip[@]}" "${libraries[@]}" --cuda-device-only --offload-arch="$arch" -S "$file" -o "$work/kernels.s"
    # One line per kernel from the metadata (keys at 4 spaces; a kernel's first key follows "  - ",
    # its arguments' keys are deeper), with the v_mfma count of the body under the kernel's label.
    # A symbol referenced but not defined in the file is a call to a library left unlinked.
    : >"$work/kernels.tsv"
    awk -v table="$work/kernels.tsv" '
      function flush() {
        if (k["name"] != "")
          printf "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%d\n", k["name"], k["vgpr_count"], k["agpr_count"], k["sgpr_count"],
                 k["group_segment_fixed_size"], k["private_segment_fixed_size"], k["uses_dynamic_stack"],
                 k["vgpr_spill_count"], k["sgpr_spill_count"], k["wavefront_size"], mfma[k["name"]] > table
        delete k
      }
      /^\t\.amdgpu_metadata/ { metadata = 1 }
      metadata {
        if (/^  - /) { flush(); sub(/^  - /, "    ") }
        else if (!/^    /) flush()
        if (match($0, /^    \.[a-z_]+:/)) k[substr($0, 6, RLENGTH - 6)] = $2
        next
      }
      /^[^ \t;]+:/ {  # a label; not .L...: a function (or data) starts
        label = substr($1, 1, index($1, ":") - 1); defined[label] = 1
        if (label !~ /^\./) body = label
      }
      /^\.Lfunc_end/ { body = "" }
      /^\tv_mfma/ { ++mfma[body] }
      {
        for (line = $0; match(line, /[A-Za-z_.$][A-Za-z0-9_.$]*@(rel32|gotpcrel32)/); line = substr(line, RSTART + RLENGTH))
          used[substr(line, RSTART, index(substr(line, RSTART), "@") - 1)] = 1
      }
      END {
        flush()
        for (symbol in used)
          if (!(symbol in defined)) { print "unresolved: " symbol " (a device library function not linked?)" > "/dev/stderr"; bad = 1 }
        exit bad
      }' "$work/kernels.s"
    # A file that defines kernels must have produced their metadata.
    if grep -q "__global__" "$file"; then [ -s "$work/kernels.tsv" ]; fi
    if [ -n "${NOVA_KERNEL_TABLE:-}" ]; then cp "$work/kernels.tsv" "$NOVA_KERNEL_TABLE"; fi
    if [ -n "${NOVA_KERNEL_ASM:-}" ]; then cp "$work/kernels.s" "$NOVA_KERNEL_ASM"; fi
    if [ "$arch" != gfx1100 ]; then
      awk -F'\t' '
        $1 ~ /_fused_mfma_/ {
          ++gated; why = ""
          if ($6 > 0) why = why ", " $6 " bytes of scratch"
          if ($7 == "true") why = why ", a dynamic stack"
          if ($8 > 0) why = why ", " $8 " VGPR spills"
          if ($9 > 0) why = why ", " $9 " SGPR spills"
          if ($11 == 0) why = why ", no v_mfma in its body"
          if (why != "") { print "MFMA gate: " $1 ":" substr(why, 2) > "/dev/stderr"; bad = 1 }
        }
        END { if (gated) print "MFMA gate: " gated " kernels checked"; exit bad }' "$work/kernels.tsv"
    fi ;;
  hip-host)
    "$compiler" "${hip[@]}" --cuda-host-only --offload-arch=gfx942 -c "$file" -o "$work/kernels.o" ;;
  *)
    echo "unknown mode '$mode'" >&2
    exit 2 ;;
esac
echo "OK: $mode $(basename "$file")"
