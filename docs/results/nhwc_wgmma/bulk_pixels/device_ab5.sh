#!/usr/bin/env bash
# Fused v5.14 on the GPU machine, from the repository root, with .device/base.tar.xz (fused v5.13, as
# tools/device/pack_ab.sh packs it), .device/build-cuda.tar.xz and .device/build-cuda.path carried. The
# staged build: the NHWC producers take two items a pass where C is even (the later item's patch loaded
# between the first item's two channel transforms, as in device_ab4.sh) and store each staged pixel by
# one bulk copy of the copy engine (cp.async.bulk, shared to global) instead of 16-byte stores a run;
# the NHWC staging is padded by tile only, so the U ring holds four stages at C = 64.
#   - the GPU tests that run the wgmma kernel (ctest -L gpu -R; gpu_tests_v5.14.txt);
#   - the two builds alternating in each of two runs, the wgmma kernel forced on both layouts at VGG-16
#     64@224 (batch 32 and 8) and ResNet-50 64@56 (batch 32), f4x3_standard (ab5*);
#   - the mma.sync kernel forced on NHWC with the base build, the same layers (mma5.txt);
#   - Nsight Compute's full set and source page of the staged NHWC kernel at VGG-16 64@224 b32.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
ONLY="every path|wgmma_fused_kernel|loaded at run time" tools/device/run_gpu_tests.sh --log "$out/r/gpu_tests_v5.14.txt" | tail -3
NOVA_FUSED_KERNEL=wgmma LAYERS="64,224,32 64,224,8 64,56,32" TRANSFORMS=f4x3_standard \
  LAYOUTS="NCHW-f NHWC-f" OUT=$out/r tools/device/ab_stages.sh >/dev/null
mv "$out/r/ab.txt" "$out/r/ab5.txt"
tools/device/ab_table.py "$out/r/ab5.txt" | tee "$out/r/ab5_table.txt"
NOVA_FUSED_KERNEL=mma BUILDS=base LAYERS="64,224,32 64,224,8 64,56,32" TRANSFORMS=f4x3_standard LAYOUTS="NHWC-f" \
  OUT=$out/r/mma tools/device/ab_stages.sh >/dev/null
sort "$out/r/mma/ab.txt" >"$out/r/mma5.txt" && rm -rf "$out/r/mma"
. tools/device/stage.sh
use_stage build-cuda
p=$out/r/ncu_nhwc_64x224_v5.14
mkdir -p /tmp/ncu
NOVA_FUSED_KERNEL=wgmma LD_LIBRARY_PATH=$stage/runtime:$stage/jit ncu --clock-control none --set full -f -o /tmp/v514 \
  --kernel-name regex:f4x3_standard_fused_wgmma_nhwc_f16_v0\$ --launch-count 1 "$stage/tools/device/nova-bench-conv" \
  /tmp/ncu --layer 64,224,32 --transform f4x3_standard >"$p.log" 2>&1
ncu --import /tmp/v514.ncu-rep --page details >"$p.txt" 2>&1
ncu --import /tmp/v514.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip >"${p}_source.csv.gz"
python3 tools/device/sass_summary.py --roles "${p}_source.csv.gz" >"${p}_roles.txt" 2>&1
grep -E "Duration|L2 Cache Throughput" "$p.txt"
cat "$out/r/mma5.txt"
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
