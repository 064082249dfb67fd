#!/usr/bin/env bash
# Small CUDA builds (f4x3_standard's kernels only) for the A/B of "Fused v5.26" in docs/performance.md, staged
# as .device/wgb_NAME.tar.xz for docs/results/wgmma_bounds/device.sh (VARIANTS="before stsm"):
#   before: the kernels of e75c786 (the consumer stages each output as one 16-bit store), from a git worktree;
#   stsm:   this tree at 6a22fd7 (NHWC stagings by stmatrix .trans, NCHW ones in pixel pairs).
# Usage (repository root): docs/results/stmatrix_staging/build.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
[ -d /tmp/nova_e75c786 ] || git worktree add -f /tmp/nova_e75c786 e75c786 >/dev/null
CONFIGS=f4x3_standard tools/device/build_small.sh wgb_before /tmp/nova_e75c786
CONFIGS=f4x3_standard tools/device/build_small.sh wgb_stsm
