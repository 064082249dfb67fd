#!/usr/bin/env bash
# The fourth A/B of the session, on the GPU machine, from the repository root, with .device/base.tar.xz
# (fused v5.13), .device/build-cuda.patch.xz and .device/build-cuda.path carried (tools/device/pack_ab.sh
# build-cuda). The staged build: v5.14 (NHWC staging swizzled, four U stages, the store loop a run of a
# pixel a thread) with the NHWC producers taking two items a pass where C is even, the later item's
# patch loaded between the first item's two channel transforms (the earliest point without spills;
# device_ab3.sh: after both). The two builds alternating in each of two runs, the wgmma kernel forced on both
# layouts at VGG-16 64@224 (batch 32 and 8) and ResNet-50 64@56 (batch 32), f4x3_standard; then
# Nsight Compute's full set and source page of the staged build's NHWC kernel at VGG-16 64@224 batch 32
# (ncu_nhwc_64x224_vf*; the base build's is ncu_nhwc_64x224_*_new from device_baseline.sh).
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
NOVA_FUSED_KERNEL=wgmma LAYERS="64,224,32 64,224,8 64,56,32" TRANSFORMS=f4x3_standard \
  LAYOUTS="NCHW-f NHWC-f" OUT=$out/r tools/device/ab_stages.sh >/dev/null
tools/device/ab_table.py "$out/r/ab.txt" | tee "$out/r/ab_table.txt"
. tools/device/stage.sh
use_stage build-cuda
p=$out/r/ncu_nhwc_64x224_vf
mkdir -p /tmp/ncu
NOVA_FUSED_KERNEL=wgmma LD_LIBRARY_PATH=$stage/runtime:$stage/jit ncu --clock-control none --set full -f -o /tmp/vf \
  --kernel-name regex:f4x3_standard_fused_wgmma_nhwc_f16_v0\$ --launch-count 1 "$stage/tools/device/nova-bench-conv" \
  /tmp/ncu --layer 64,224,32 --transform f4x3_standard >"$p.log" 2>&1
ncu --import /tmp/vf.ncu-rep --page details >"$p.txt" 2>&1
ncu --import /tmp/vf.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip >"${p}_source.csv.gz"
python3 tools/device/sass_summary.py --roles "${p}_source.csv.gz" >"${p}_roles.txt" 2>&1
grep -E "Duration|L2 Cache Throughput" "$p.txt"
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
