#!/usr/bin/env bash
# On the GPU machine, from the repository root, with .device/tcfold/wgmma_stage_rate (the probe, built here: the nvcc
# line in its header) and .device/wgb_{base,no_fold}.tar.xz (docs/results/wgmma_bounds/build.sh with no_fold.patch
# applied, VARIANTS="base no_fold") carried:
#   1. the probe's check of the tensor-core fold and its fold lines (wgmma_stage_rate --fold);
#   2. the wgmma kernel of today with and without its fold (the consumer's rows never folded: wrong outputs, a bound),
#      forced, f4x3_standard, both layouts, graph replay, the builds in turn, twice.
set -uo pipefail
out=${OUT:-/tmp}
.device/tcfold/wgmma_stage_rate --fold | tee "$out/probe.txt"
VARIANTS="base no_fold" LAYERS="${LAYERS:-64,224,32 64,224,8 64,224,1 64,56,32 64,56,8}" docs/results/wgmma_bounds/device.sh |
  tee "$out/bounds.txt"
