#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/o}; mkdir -p $out
tools/device/run_gpu_tests.sh > $out/gpu_tests.txt 2>&1; echo "gpu tests rc=$?"
grep -E "tests passed|tests failed| passed" $out/gpu_tests.txt | tail -3
xz -dkf .device/pdl_broken_test.xz && chmod +x .device/pdl_broken_test
.device/pdl_broken_test > $out/broken_decision.txt 2>&1; echo "broken build rc=$?"
grep -c "does not launch as a programmatic dependent" $out/broken_decision.txt; tail -1 $out/broken_decision.txt
