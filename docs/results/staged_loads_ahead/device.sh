#!/usr/bin/env bash
# The staged NCHW output with shared-memory loads ahead (v5) against the committed build (v4), on the
# GPU machine from the repository root, with .device/base.tar.xz, .device/build-cuda.tar.xz and
# .device/build-cuda.path carried. PART=1: the GPU tests of v5, the A/B of forced NCHW 3-pass F(4,3)
# and of AUTO at the layers whose output the kernel stages, and Nsight Compute of the F(4,3) NCHW output
# kernel at VGG-16 512@14 in both builds (docs/results/nchw_output_staged/device.sh). PART=2: AUTO on
# 600 random shapes (seeds 107 and 108) with both builds, and v5's --quick speed table. Everything
# under $OUT is packed into $OUT/part$PART.tar.gz (the device tool returns 8 files a call).
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/part$PART"
if [ "$PART" = 1 ]; then
  OUT=$out/part1 LAYERS="512,14,32 256,14,32 512,7,32" TRANSFORMS=f4x3_standard docs/results/nchw_output_staged/device.sh
else
  OUT=$out/part2 SEEDS="107 108" AUTO_BUILDS="base new" tools/device/auto_random.sh
  OUT=$out/part2/quick tools/device/bench_conv.sh --quick >/dev/null
fi
tar czf "$out/part$PART.tar.gz" -C "$out" "part$PART" && rm -rf "${out:?}/part$PART"
