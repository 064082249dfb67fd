#!/usr/bin/env bash
# Kept for the record (run on the device as .device/pdl.sh, with abfull.sh of results/nhwc_blocks/final_form/
# carried as .device/abfull.sh): the GPU tests of build-cuda, then the full A/B against .device/base.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/o}
rm -rf .device/build-cuda
tools/device/run_gpu_tests.sh > $out/gpu_tests.txt 2>&1; echo "gpu tests rc=$?"
grep -E "tests passed|tests failed| passed|FAIL" $out/gpu_tests.txt | tail -4
bash .device/abfull.sh
