#!/usr/bin/env bash
# Builds a small CUDA runtime for an A/B on the GPU machine: only the kernels of CONFIGS (default
# "f4x3_standard f2x3_standard", names in configs/) generated (nova-codegen into the build folder,
# -DNOVA_GENERATED_DIR), the runtime, the JIT and the bench, staged as .device/NAME and packed as
# .device/NAME.tar.xz (2-5 MB, so that several builds and the tree pass the device tool's 64 MiB;
# tools/device/build_stage.sh).
# Usage: tools/device/build_small.sh NAME [SOURCE_TREE] [extra cmake arguments...]
#   NAME: base (what tools/device/ab_stages.sh compares with) or build-cuda (the staged build);
#   SOURCE_TREE: default the repository (a git worktree of the commit to compare with, for base).
# NOVA_CODEGEN in the environment: the nova-codegen to generate with (default build/codegen/nova-codegen; a
# base whose generated code differs needs its own).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
name=${1:?usage: build_small.sh NAME [SOURCE_TREE] [cmake arguments...]}
src=${2:-$root}
shift $(($# < 2 ? $# : 2))
build=$root/build-small-$name
mkdir -p "$build"
rm -f "$build/CMakeCache.txt"  # no flags of an earlier call
configs=()
for config in ${CONFIGS:-f4x3_standard f2x3_standard}; do configs+=("$src/configs/$config.json"); done
rm -rf "$build/generated"
"${NOVA_CODEGEN:-$root/build/codegen/nova-codegen}" "${configs[@]}" --out "$build/generated" >/dev/null
targets=(nova_runtime nova_jit nova-bench-conv)
. tools/device/build_stage.sh
build_and_stage "$src" "$build" "$name" -DNOVA_BUILD_TESTS=OFF -DNOVA_GENERATED_DIR="$build/generated" "$@"
