#!/usr/bin/env bash
# The local-memory instructions of two spilling wgmma kernels (the build before Fused v5.32), on the GPU machine from
# the repository root with .device/build-cuda.tar.xz and .device/build-cuda.path carried: each kernel's SASS
# (cuobjdump), the count of its STL/LDL among its instructions, and its STL/LDL lines with the barrier, branch and
# HGMMA lines around them into $OUT/KERNEL.txt.
set -uo pipefail
. tools/device/stage.sh
use_stage build-cuda
for k in nova_f4x3_fp16_fused_wgmma_nhwc_f16_v0 nova_f4x3_nova_fused_wgmma_nhwc_f16_v0; do
  cuobjdump -sass -fun $k "$stage/runtime/libnova_runtime.so" >/tmp/$k.sass
  echo "$k: $(grep -c 'STL\|LDL' /tmp/$k.sass) local-memory instructions of $(grep -c '^ */\*[0-9a-f]*\*/' /tmp/$k.sass)"
  grep -n 'STL\|LDL\|BRA\|WARPGROUP\|HGMMA\|SYNCS\|BAR' /tmp/$k.sass | grep -B2 -A2 'STL\|LDL' | sed 's|/\* 0x[0-9a-f]* \*/||' |
    head -60 >"$OUT/$k.txt"
done
