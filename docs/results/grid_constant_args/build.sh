#!/usr/bin/env bash
# Small CUDA builds (f4x3_standard's kernels only, tools/device/build_stage.sh) for the A/B of "Fused v5.24"
# in docs/performance.md, each staged and packed as .device/wgb_NAME.tar.xz for
# docs/results/wgmma_bounds/device.sh (VARIANTS="v523 plain final"):
#   v523:  the kernels of 23463f4 (v5.23: the tensor map inside FusedConvArgs, every wgmma kernel's arguments
#          __grid_constant__), from a git worktree of that commit with its own nova-codegen;
#   plain: this tree with the map a parameter of its own and FusedConvArgs a plain parameter in every wgmma
#          kernel (the generated file edited so);
#   final: this tree as committed (FusedConvArgs NOVA_GRID_CONSTANT in the kernels with the tensor-core
#          path, fused_wg_tc_kernel).
# Usage (repository root): [VARIANTS="v523 plain final"] docs/results/grid_constant_args/build.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
root=$PWD
targets=(nova_runtime nova_jit nova-bench-conv)
. tools/device/build_stage.sh
for variant in ${VARIANTS:-v523 plain final}; do
  build=$root/build-small-wgb_$variant
  mkdir -p "$build"
  rm -f "$build/CMakeCache.txt"
  rm -rf "$build/generated"
  src=$root
  codegen=$root/build/codegen/nova-codegen
  if [ "$variant" = v523 ]; then
    src=/tmp/nova_v523
    [ -d "$src" ] || git worktree add -f "$src" 23463f4 >/dev/null
    cmake -S "$src" -B "$src/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$src/build" --target nova-codegen >/dev/null
    codegen=$src/build/codegen/nova-codegen
  fi
  "$codegen" "$src/configs/f4x3_standard.json" --out "$build/generated" >/dev/null
  [ "$variant" = plain ] && sed -i 's/const NOVA_GRID_CONSTANT nova::kernels::FusedConvArgs args/nova::kernels::FusedConvArgs args/' \
    "$build/generated/f4x3_standard_kernels.hip"
  case $variant in v523 | plain | final) ;; *) echo "no variant $variant" >&2; exit 1 ;; esac
  build_and_stage "$src" "$build" "wgb_$variant" -DNOVA_BUILD_TESTS=OFF -DNOVA_GENERATED_DIR="$build/generated"
done
