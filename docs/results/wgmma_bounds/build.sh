#!/usr/bin/env bash
# Builds the small CUDA runtime (f4x3_standard's kernels only, as tools/device/build_small.sh does) from the
# working tree with experiment.patch applied, once for each variant: without a macro (wgb_base), with
# NOVA_EXPERIMENT_U_ONCE (wgb_u_once), NOVA_EXPERIMENT_NO_INPUT (wgb_no_input), NOVA_EXPERIMENT_NO_FOLD
# (wgb_no_fold) and both of the last two (wgb_no_fold_input), each staged and packed as
# .device/NAME.tar.xz for device.sh.
# Usage (repository root, the patch applied): [VARIANTS="base ..."] docs/results/wgmma_bounds/build.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
build=$PWD/build-small-wgmma-bounds
mkdir -p "$build"
rm -rf "$build/generated"
build/codegen/nova-codegen configs/f4x3_standard.json --out "$build/generated" >/dev/null
targets=(nova_runtime nova_jit nova-bench-conv)
. tools/device/build_stage.sh
for variant in ${VARIANTS:-base u_once no_input no_fold no_fold_input}; do
  case $variant in
    base) flags="" ;;
    u_once) flags=-DNOVA_EXPERIMENT_U_ONCE ;;
    no_input) flags=-DNOVA_EXPERIMENT_NO_INPUT ;;
    no_fold) flags=-DNOVA_EXPERIMENT_NO_FOLD ;;
    no_fold_input) flags="-DNOVA_EXPERIMENT_NO_FOLD -DNOVA_EXPERIMENT_NO_INPUT" ;;
    *) echo "no variant $variant" >&2; exit 1 ;;
  esac
  rm -f "$build/CMakeCache.txt"
  build_and_stage . "$build" wgb_$variant -DNOVA_BUILD_TESTS=OFF -DNOVA_GENERATED_DIR="$build/generated" \
    -DCMAKE_CUDA_FLAGS="$flags"
done
