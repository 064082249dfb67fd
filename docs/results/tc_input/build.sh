#!/usr/bin/env bash
# Builds the small CUDA runtime (f4x3_standard's kernels only, as tools/device/build_small.sh does) from the
# working tree with experiment.patch applied, once without the macro (wgb_base) and once with
# NOVA_EXPERIMENT_TC_INPUT (wgb_tc), each staged and packed as .device/NAME.tar.xz for
# docs/results/wgmma_bounds/device.sh (VARIANTS="base tc").
# Usage (repository root, the patch applied): [VARIANTS="base tc"] docs/results/tc_input/build.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
build=$PWD/build-small-wgmma-bounds
mkdir -p "$build"
targets=(nova_runtime nova_jit nova-bench-conv)
. tools/device/build_stage.sh
for variant in ${VARIANTS:-base tc}; do
  rm -rf "$build/generated"
  build/codegen/nova-codegen configs/f4x3_standard.json --out "$build/generated" >/dev/null
  # The experiment's wgmma kernels take their parameters __grid_constant__ (the tensor map's address).
  [ "$variant" = base ] || sed -i -E 's/(_fused_wgmma_[a-z0-9_]+\()nova::kernels::FusedConvArgs args\)/\1const __grid_constant__ nova::kernels::FusedConvArgs args)/' \
    "$build/generated/f4x3_standard_kernels.hip"
  case $variant in
    base) flags="" ;;
    tc) flags=-DNOVA_EXPERIMENT_TC_INPUT ;;
    *) echo "no variant $variant" >&2; exit 1 ;;
  esac
  rm -f "$build/CMakeCache.txt"
  build_and_stage . "$build" wgb_$variant -DNOVA_BUILD_TESTS=OFF -DNOVA_GENERATED_DIR="$build/generated" \
    -DCMAKE_CUDA_FLAGS="$flags"
done
