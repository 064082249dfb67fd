#!/usr/bin/env bash
# The staged NCHW output transform against the committed build, on the GPU machine, from the
# repository root, with .device/base.tar.xz, .device/build-cuda.tar.xz and .device/build-cuda.path
# carried: the GPU tests of the staged build, the A/B of the forced NCHW 3-pass and AUTO on the layers
# whose output rows are not runs (and two whose rows are, as a control), Nsight Compute of the F(4,3)
# NCHW output kernel at VGG-16 512@14 in both builds, then the staged build's --quick speed table and
# its speed/accuracy frontier. Environment: SKIP_TESTS=1, LAYERS, TRANSFORMS, RUNS, NCU=0, QUICK=1,
# FRONTIER=1.
set -uo pipefail
out=${OUT:-/tmp/o}
[ "${SKIP_TESTS:-0}" = 1 ] || tools/device/run_gpu_tests.sh --log "$out/gpu_tests.txt"
LAYERS=${LAYERS:-"512,14,32 256,14,32 512,7,32 512,28,32 128,28,32"} TRANSFORMS=${TRANSFORMS:-"f4x3_standard f2x3_standard"} \
  LAYOUTS="NCHW-3 NCHW NHWC-3" RUNS=${RUNS:-"1 2"} OUT=$out tools/device/ab_stages.sh >/dev/null
[ "${NCU:-1}" = 1 ] && tools/device/ncu_ab.sh 512,14,32 f4x3_standard output_m16_nchw_f16 output_m16_nchw_f16 "$out/ncu"
[ "${QUICK:-0}" = 1 ] && OUT=$out/quick tools/device/bench_conv.sh --quick >/dev/null
[ "${FRONTIER:-0}" = 1 ] && OUT=$out/frontier tools/device/bench_conv.sh --frontier >/dev/null
sort "$out/ab.txt" | grep -v NHWC
