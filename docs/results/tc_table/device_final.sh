#!/usr/bin/env bash
# On the GPU machine, from the repository root (carried: .device/build-cuda.tar.xz and .device/build-cuda.path, the
# full CUDA build of Fused v5.40 by tools/device/build_gpu.sh; .device/base.tar.xz and .device/tcfrag.tar.xz of
# build.sh): ctest -L gpu and the PyTorch package's tests (gpu_tests.txt); Nsight Compute of v5.40 at ResNet-50 64@56
# b8 and VGG-16 64@224 b1 as graph replay leaves the caches (ncu/); a fourth A/B of base and tcfrag (ab_4.txt,
# table_4.txt).
set -uo pipefail
tools/device/run_gpu_tests.sh --log "$OUT/gpu_tests.txt"
mkdir -p "$OUT/ncu" && OUT=$OUT/ncu STAGE=tcfrag SHAPES="layer:64,56,8 layer:64,224,1" docs/results/one_group_ring/ncu_lone.sh
NOVA_FUSED_KERNEL=wgmma BUILDS="base tcfrag" RUNS="1 2 3" tools/device/small_ab.sh >"$OUT/ab_4.txt"
tools/device/small_ab_table.py "$OUT/ab_4.txt" | tee "$OUT/table_4.txt"
