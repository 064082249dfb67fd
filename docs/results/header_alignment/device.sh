#!/usr/bin/env bash
# Fused v5.13 (the wgmma kernel's buffers on 128-byte boundaries) on the GPU machine, from the repository
# root, with .device/base.tar.xz (v5.12), .device/build-cuda.tar.xz and .device/build-cuda.path carried:
#   - the GPU tests that run the wgmma kernel (ctest -L gpu -R: the every-path test with the runtime's
#     choice and with the wgmma kernel forced, and loaded transforms, whose kernels NVRTC compiles from
#     the same headers): the session's device time did not cover the whole suite;
#   - the A/B (tools/device/ab_stages.sh, two runs, the builds alternating) of the wgmma kernel forced on
#     both layouts at VGG-16 64@224 and ResNet-50 64@56, batch 32, f4x3_standard.
# Everything under $OUT is packed into $OUT/r.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
ONLY="every path|wgmma_fused_kernel|loaded at run time" tools/device/run_gpu_tests.sh --log "$out/r/gpu_tests.txt" | tail -3
NOVA_FUSED_KERNEL=wgmma LAYERS="64,224,32 64,56,32" TRANSFORMS=f4x3_standard LAYOUTS="NCHW-f NHWC-f" OUT=$out/r \
  tools/device/ab_stages.sh >/dev/null
tools/device/ab_table.py "$out/r/ab.txt" | tee "$out/r/ab_table.txt"
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
