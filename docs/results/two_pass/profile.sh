#!/usr/bin/env bash
# Runs on the GPU machine (device tool), from the repository root, with .device/rate carried, the probe built with
# device.sh's command: pass 2 on VGG-16 256@56 b32 in clusters of 2 tile groups (a copy a stage), the full
# Nsight Compute set, its per-instruction page into $OUT (tools/device/sass_summary.py reads it).
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-two-pass-out}
mkdir -p "$out"
timeout 300 ncu --set full --kernel-name-base demangled --kernel-name "regex:gemm_fold_pass<.int.2, .int.2, .int.1, .int.1>" \
  --launch-skip 3 --launch-count 1 -o "$out/pass2_2x2x1" .device/rate/two_pass 256 56 32 >"$out/ncu_run.txt" 2>&1
ncu --import "$out/pass2_2x2x1.ncu-rep" --page source --csv --print-source sass | gzip >"$out/pass2_2x2x1_source.csv.gz"
ncu --import "$out/pass2_2x2x1.ncu-rep" --page details >"$out/pass2_2x2x1_details.txt"
rm "$out/pass2_2x2x1.ncu-rep"
