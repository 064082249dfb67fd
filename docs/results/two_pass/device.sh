#!/usr/bin/env bash
# Runs on the GPU machine (device tool), from the repository root, with .device/rate (the probe, built here) and
# .device/build-cuda.tar.xz + .device/build-cuda.path (tools/device/build_gpu.sh) carried:
#   nvcc -O3 -std=c++20 -lineinfo -gencode=arch=compute_90a,code=sm_90a -I. -Iruntime/kernels/include \
#     -Iruntime/include tools/device/two_pass.cu -o .device/rate/two_pass
# The two-pass probe (check, then both passes timed), two profiles, then in the same run NOVA's AUTO and cuDNN on the
# same layers (the bench, --layer, NHWC rows). Outputs into $OUT; table.py tabulates them.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-two-pass-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
timeout 200 .device/rate/two_pass | tee "$out/probe.txt" || echo "probe: exit $?" | tee -a "$out/probe.txt"
# Where pass 2's time goes on VGG-16 256@56 b32: one CTA a cluster and clusters of 2 tile groups, a copy a stage
# (Nsight Compute; profile.sh: the full set of the second).
for cfg in 2x1x1x1 2x2x1x1; do
  IFS=x read -r c g b k <<<"$cfg"
  timeout 120 ncu --kernel-name-base demangled --kernel-name "regex:gemm_fold_pass<.int.$c, .int.$g, .int.$b, .int.$k>" \
    --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
    .device/rate/two_pass 256 56 32 >"$out/ncu_256_56_32_$cfg.txt" 2>&1 || true
done
. tools/device/stage.sh
use_stage build-cuda
work=$(mktemp -d)  # the bench's CSV files; its logs go into one file of $out
for n in 32 8; do
  [ "$n" = 8 ] && layers="128,112 256,56" || layers="128,28 256,14 512,7 128,112 256,56 512,28 512,14"
  for layer in $layers; do
    dir="$work/${layer/,/_}_$n"
    mkdir -p "$dir"
    LD_LIBRARY_PATH="$stage/runtime:${LD_LIBRARY_PATH:-}" "$stage/tools/device/nova-bench-conv" "$dir" --layer "$layer,$n" \
      >"$dir/log" 2>&1
    cat "$dir/log" >>"$out/bench_logs.txt"
    grep -E "^(ResNet-50|VGG-16) .* NHWC " "$dir/log" || tail -3 "$dir/log"
  done
done | tee "$out/bench_nhwc.txt"
