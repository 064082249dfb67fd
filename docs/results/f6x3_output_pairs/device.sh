#!/usr/bin/env bash
# One device call of the fifteenth session (the F(6,3) output transform in pairs of small blocks): the
# GPU tests of the staged build (SKIP_TESTS=1: none), tools/device/ab_stages.sh once for each
# "TRANSFORMS:DTYPES:LAYOUTS:LAYERS" item of AB (items separated by ";"; default
# "f6x3_fp16 f4x3_standard:fp16:NHWC-3:"; an
# empty field keeps ab_stages.sh's default; RUNS defaults to 1 here), Nsight Compute of the f6x3_fp16
# kernels named in NCU (default output_m16_nhwc_f16) at NCU_LAYER (default 128,112,32) in both builds,
# then AUTO on 300 fresh random shapes for each seed in SEEDS (none by default) with the builds in
# AUTO_BUILDS (default new: the staged one; base: the committed one).
# Run on the device from the repository root with .device/build-cuda.tar.xz, .device/build-cuda.path
# and .device/base.tar.xz carried.
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/o}
mkdir -p $out
[ -n "${SKIP_TESTS:-}" ] || tools/device/run_gpu_tests.sh --log $out/gpu_tests.txt
IFS=';' read -ra items <<<"${AB:-f6x3_fp16 f4x3_standard:fp16:NHWC-3:}"
for item in "${items[@]}"; do
  IFS=':' read -r transforms dtypes layouts layers <<<"$item"
  TRANSFORMS=${transforms:-} DTYPES=${dtypes:-} LAYOUTS=${layouts:-} LAYERS=${layers:-} RUNS="${RUNS:-1}" \
    bash tools/device/ab_stages.sh >/dev/null
done
. tools/device/stage.sh
use_stage build-cuda
mkdir -p /tmp/ncu
layer=${NCU_LAYER:-128,112,32}
for kernel in ${NCU-output_m16_nhwc_f16}; do
  for build in base new; do
    root=.device/base
    [ $build = new ] && root=$stage
    LD_LIBRARY_PATH=$root/runtime:$root/jit ncu --section SpeedOfLight --section Occupancy --section LaunchStats \
      --section WarpStateStats --section MemoryWorkloadAnalysis --kernel-name regex:f6x3_fp16_${kernel}\$ \
      --launch-count 1 $root/tools/device/nova-bench-conv /tmp/ncu --layer $layer --transform f6x3_fp16 \
      >$out/ncu_${kernel}_${layer//,/_}_$build.txt 2>&1
    echo "== ncu $kernel $layer $build"
    grep -E "Duration|Registers Per|Block Size|Achieved Occupancy|Memory Throughput|Warp Cycles Per Issued" \
      $out/ncu_${kernel}_${layer//,/_}_$build.txt
  done
done
SEEDS="${SEEDS:-}" OUT=$out bash tools/device/auto_random.sh
sort $out/ab.txt
