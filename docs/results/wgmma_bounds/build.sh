#!/usr/bin/env bash
# Builds the small CUDA runtime (f4x3_standard's kernels only, as tools/device/build_small.sh does) three
# times from the working tree with experiment.patch applied: without a macro (wgb_base), with
# NOVA_EXPERIMENT_U_ONCE (wgb_u_once) and with NOVA_EXPERIMENT_NO_INPUT (wgb_no_input), each staged and
# packed as .device/NAME.tar.xz for device.sh.
# Usage (repository root, the patch applied): docs/results/wgmma_bounds/build.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
build=$PWD/build-small-wgmma-bounds
mkdir -p "$build"
rm -rf "$build/generated"
build/codegen/nova-codegen configs/f4x3_standard.json --out "$build/generated" >/dev/null
targets=(nova_runtime nova_jit nova-bench-conv)
. tools/device/build_stage.sh
for variant in base u_once no_input; do
  flags=""
  [ $variant = u_once ] && flags=-DNOVA_EXPERIMENT_U_ONCE
  [ $variant = no_input ] && flags=-DNOVA_EXPERIMENT_NO_INPUT
  rm -f "$build/CMakeCache.txt"
  build_and_stage . "$build" wgb_$variant -DNOVA_BUILD_TESTS=OFF -DNOVA_GENERATED_DIR="$build/generated" \
    -DCMAKE_CUDA_FLAGS="$flags"
done
