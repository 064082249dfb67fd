#!/usr/bin/env bash
# Small CUDA builds (f4x3_standard's kernels only, tools/device/build_stage.sh) for the A/B of "Fused v5.26"
# in docs/performance.md, each staged and packed as .device/wgb_NAME.tar.xz for
# docs/results/wgmma_bounds/device.sh (VARIANTS="before stsm"):
#   before: the kernels of BASE (default e75c786: the consumer stages each output as one 16-bit store),
#           from a git worktree of that commit;
#   stsm:   this tree (NHWC stagings by stmatrix .trans, NCHW ones in pixel pairs).
# Usage (repository root): [VARIANTS="before stsm"] [BASE=commit] docs/results/stmatrix_staging/build.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
root=$PWD
targets=(nova_runtime nova_jit nova-bench-conv)
. tools/device/build_stage.sh
for variant in ${VARIANTS:-before stsm}; do
  build=$root/build-small-wgb_$variant
  mkdir -p "$build"
  rm -f "$build/CMakeCache.txt"
  rm -rf "$build/generated"
  case $variant in
    before)
      src=/tmp/nova_before_stsm
      [ -d "$src" ] || git worktree add -f "$src" "${BASE:-e75c786}" >/dev/null ;;
    stsm) src=$root ;;
    *) echo "no variant $variant" >&2; exit 1 ;;
  esac
  "$root/build/codegen/nova-codegen" "$src/configs/f4x3_standard.json" --out "$build/generated" >/dev/null
  build_and_stage "$src" "$build" "wgb_$variant" -DNOVA_BUILD_TESTS=OFF -DNOVA_GENERATED_DIR="$build/generated"
done
