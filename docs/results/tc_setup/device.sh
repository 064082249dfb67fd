#!/usr/bin/env bash
# On the GPU machine, from the repository root (carried: .device/base.tar.xz, .device/nosetup.tar.xz, small builds of
# tools/device/build_small.sh: base = bf306bd, nosetup = bf306bd with no_setup.patch): the tensor-core path's
# producers without their setup (wrong outputs: a bound), the wgmma kernel forced, f4x3_standard, NHWC, three runs.
set -euo pipefail
NOVA_FUSED_KERNEL=wgmma BUILDS="base nosetup" RUNS="1 2 3" tools/device/small_ab.sh >"$OUT/ab.txt"
tools/device/small_ab_table.py "$OUT/ab.txt" | tee "$OUT/table.txt"
