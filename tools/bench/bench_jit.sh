#!/usr/bin/env bash
# What loading a transform at run time costs (libnova_jit, nova-jit): read + exact verification +
# codegen + registration, the NVRTC compile of every GPU kernel for ARCH (no GPU needed), and the
# same from a second process that finds the kernels in the disk cache. Transforms not in configs/:
# tests/jit/data (F(5,3): the 3-pass kernels; F(2,5): 3-pass and fused).
# Usage: tools/bench/bench_jit.sh [ARCH (default sm_90a)]   NOVA_JIT=path/to/nova-jit to use another build
set -euo pipefail
cd "$(dirname "$0")/../.."
arch=${1:-sm_90a}
jit=${NOVA_JIT:-build/jit/nova-jit}
[ -n "${NOVA_JIT:-}" ] || cmake --build build --target nova-jit >/dev/null
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
field() { sed -n "s/.*$1 \([0-9.]*\) ms.*/\1/p" | head -1; }
printf '| transform | load: read + verify + generate + register (ms) | compile with NVRTC for %s (ms) | cubin (KiB) | second process: load (ms) | kernels from the cache (ms) |\n|---|---:|---:|---:|---:|---:|\n' "$arch"
for config in tests/jit/data/*.json; do
  first=$(NOVA_CACHE_DIR=$cache "$jit" "$config" --arch "$arch")
  second=$(NOVA_CACHE_DIR=$cache "$jit" "$config" --arch "$arch")
  grep -q "(NVRTC)" <<<"$first" && grep -q "(from the cache)" <<<"$second" || { echo "$first$second" >&2; exit 1; }
  bytes=$(sed -n 's/.*, \([0-9]*\) bytes of cubin.*/\1/p' <<<"$first")
  printf '| %s | %s | %s | %d | %s | %s |\n' "$(basename "$config" .json)" "$(field "registration) in" <<<"$first")" \
    "$(field "$arch:" <<<"$first")" $((bytes / 1024)) "$(field "registration) in" <<<"$second")" "$(field "$arch:" <<<"$second")"
done
