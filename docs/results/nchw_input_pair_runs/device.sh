#!/usr/bin/env bash
# One device call of the sixteenth session (the NCHW input tile pairs reading patch rows in runs): the
# GPU tests of the staged build (SKIP_TESTS=1: none), tools/device/ab_stages.sh (the committed build,
# .device/base.tar.xz, against the staged one, alternating, RUNS default "1 2") on the forced NCHW
# 3-pass and AUTO rows of f4x3_standard, f2x3_standard and f6x3_fp16 in fp16 at its default layers,
# and Nsight Compute of f4x3_standard's NCHW fp16 input tile-pair kernel at VGG-16 128@112 batch 32 in
# both builds (NCU=0: none). Run on the device from the repository root with .device/build-cuda.tar.xz,
# .device/build-cuda.path and .device/base.tar.xz carried.
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/o}
mkdir -p $out
[ -n "${SKIP_TESTS:-}" ] || tools/device/run_gpu_tests.sh --log $out/gpu_tests.txt
TRANSFORMS="f4x3_standard f2x3_standard f6x3_fp16" DTYPES=fp16 LAYOUTS="NCHW-3 NCHW" RUNS="${RUNS:-1 2}" \
  bash tools/device/ab_stages.sh >/dev/null
. tools/device/stage.sh
use_stage build-cuda
if [ "${NCU:-1}" = 1 ]; then
  mkdir -p /tmp/ncu
  for build in base new; do
    root=.device/base
    [ $build = new ] && root=$stage
    LD_LIBRARY_PATH=$root/runtime:$root/jit ncu --section SpeedOfLight --section Occupancy --section LaunchStats \
      --section WarpStateStats --section MemoryWorkloadAnalysis --kernel-name regex:f4x3_standard_input_tile_pairs_nchw_f16\$ \
      --launch-count 1 $root/tools/device/nova-bench-conv /tmp/ncu --layer 128,112,32 --transform f4x3_standard \
      >$out/ncu_input_tile_pairs_$build.txt 2>&1
    echo "== ncu $build"
    grep -E "Duration|Registers Per|Achieved Occupancy|Memory Throughput|L2 Cache Throughput|DRAM Throughput|Executed Ipc A|L1/TEX Hit" \
      $out/ncu_input_tile_pairs_$build.txt
  done
fi
sort $out/ab.txt
