#!/usr/bin/env bash
# The device calls of sass_{nchw,nhwc}.txt (one call per layout; the same commands): Nsight Compute's
# full set on the first launch of the f4x3_standard wgmma kernel (forced by NOVA_FUSED_KERNEL=wgmma)
# at VGG-16 64@224 batch 32 in LAYOUT (nchw or nhwc), b60c6d5's runtime (.device/base) run by its bench
# (.device/benchonly); its per-instruction source page, summed by tools/device/sass_summary.py.
# Run from the repository root with .device/base.tar.xz and .device/benchonly.tar.xz carried.
# Usage: sass.sh LAYOUT
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/o}
lay=$1
. tools/device/stage.sh
use_base
[ -d .device/benchonly ] || tar xJf .device/benchonly.tar.xz -C .device
mkdir -p /tmp/b "$out"
NOVA_FUSED_KERNEL=wgmma LD_LIBRARY_PATH=.device/base/runtime:.device/base/jit timeout 150 ncu --set full \
  --kernel-name "regex:f4x3_standard_fused_wgmma_${lay}_f16_v0\$" --launch-count 1 -o /tmp/$lay \
  .device/benchonly/tools/device/nova-bench-conv /tmp/b --layer 64,224,32 --transform f4x3_standard \
  >"$out/ncu_full_$lay.log" 2>&1
ncu --import /tmp/$lay.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip >"$out/source_$lay.csv.gz"
python3 tools/device/sass_summary.py "$out/source_$lay.csv.gz" | tee "$out/sass_$lay.txt"
