#!/usr/bin/env bash
# One device call of the fourteenth session: the GPU tests of the staged build, then ab.sh beside this.
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/o}; mkdir -p $out
tools/device/run_gpu_tests.sh > $out/gpu_tests.txt 2>&1; echo "gpu tests rc=$?"
grep -E "tests passed|tests failed| passed" $out/gpu_tests.txt | tail -3
RUNS="${RUNS:-1 2}" DTYPES="${DTYPES:-fp16 bf16}" bash docs/results/f6x3_transforms/ab.sh 2>&1 | grep -v FAIL
