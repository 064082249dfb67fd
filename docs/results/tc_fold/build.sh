#!/usr/bin/env bash
# Builds the small CUDA runtime (f4x3_standard's kernels, as docs/results/wgmma_bounds/build.sh does) from the working
# tree with tc_fold_experiment.patch applied and NOVA_EXPERIMENT_TC_FOLD defined (host and device code), staged and
# packed as .device/wgb_tc_fold.tar.xz; the base it is timed against is wgmma_bounds/build.sh's wgb_base of the
# commit before the patch.
# Usage (repository root, the patch applied): docs/results/tc_fold/build.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
build=$PWD/build-small-tc-fold
mkdir -p "$build"
rm -rf "$build/generated" "$build/CMakeCache.txt"
build/codegen/nova-codegen configs/f4x3_standard.json --out "$build/generated" >/dev/null
targets=(nova_runtime nova_jit nova-bench-conv)
. tools/device/build_stage.sh
build_and_stage . "$build" wgb_tc_fold -DNOVA_BUILD_TESTS=OFF -DNOVA_GENERATED_DIR="$build/generated" \
  -DCMAKE_CUDA_FLAGS=-DNOVA_EXPERIMENT_TC_FOLD -DCMAKE_CXX_FLAGS=-DNOVA_EXPERIMENT_TC_FOLD
