#!/usr/bin/env bash
# The session's last call, on the GPU machine from the repository root with .device/build-cuda.tar.xz
# and .device/build-cuda.path of the final build (f73d839) carried: the whole GPU suite (gpu_tests_final.txt,
# ../session27_final/device.sh with TESTS=1) and Nsight Compute's full set of the wgmma kernel forced
# on VGG-16 64@224 b32 NHWC (ncu_nhwc_64x224_v519*.txt, the source page summed by role with
# tools/device/sass_summary.py --roles). Packs $OUT/r.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/o}
TESTS=1 docs/results/session27_final/device.sh | tail -3
mkdir -p "$out/final" /tmp/ncu
tar xzf "$out/r.tar.gz" -C "$out/final" && rm "$out/r.tar.gz"
. tools/device/stage.sh
use_stage build-cuda
prefix=$out/final/ncu_nhwc_64x224_v519
NOVA_FUSED_KERNEL=wgmma LD_LIBRARY_PATH=$stage/runtime:$stage/jit ncu --clock-control none --set full -f -o /tmp/ncu/v519 \
  --kernel-name 'regex:f4x3_standard_fused_wgmma_nhwc_f16_v0$' --launch-count 1 "$stage/tools/device/nova-bench-conv" /tmp/ncu \
  --layer 64,224,32 --transform f4x3_standard >/dev/null 2>&1
ncu --import /tmp/ncu/v519.ncu-rep --page details >"$prefix.txt" 2>&1
ncu --import /tmp/ncu/v519.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip >"${prefix}_source.csv.gz"
python3 tools/device/sass_summary.py --roles "${prefix}_source.csv.gz" >"${prefix}_roles.txt" 2>&1
grep -E "Duration|Registers Per" "$prefix.txt"
head -4 "${prefix}_roles.txt"
tar czf "$out/r.tar.gz" -C "$out" final && rm -rf "${out:?}/final"
