#!/usr/bin/env bash
# The consumer's wgmma.fence after the U barrier's wait (ptxas's C7519 notes gone) against before it, on the GPU
# machine: two small builds carried (tools/device/build_small.sh: .device/shape.tar.xz of the commit before with
# the bench's --shape, .device/fence.tar.xz of the change), the wgmma kernel forced, f4x3_standard, graph replay,
# the builds in turn, twice, both layouts (tools/device/small_ab.sh: ab.txt under $OUT). (The call also ran an earlier
# form of tools/device/wgmma_stage_rate.cu first; ../consumer_floor/rate.txt, by the committed form, supersedes its
# output.)
set -uo pipefail
NOVA_FUSED_KERNEL=wgmma BUILDS="shape fence" LAYOUTS="NHWC-f NCHW-f" tools/device/small_ab.sh | tee "$OUT/ab.txt"
