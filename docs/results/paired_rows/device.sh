#!/usr/bin/env bash
# The A/B of the fifty-second session, on the GPU machine from the repository root (carried: .device/base.tar.xz,
# .device/rolled.tar.xz, .device/fence.tar.xz, small builds of tools/device/build_small.sh: base = bf306bd, rolled =
# the tensor-core path's consumer with rows 1-4 as a loop of pairs, fence = bf306bd with the consumer's wgmma fence
# after each U wait). The wgmma kernel forced, f4x3_standard, NHWC, three runs; ab.txt, then its table.
set -euo pipefail
NOVA_FUSED_KERNEL=wgmma BUILDS="base rolled fence" RUNS="1 2 3" tools/device/small_ab.sh >"$OUT/ab.txt"
tools/device/small_ab_table.py "$OUT/ab.txt" | tee "$OUT/table.txt"
