#!/usr/bin/env bash
# On the GPU machine, from the repository root, with .device/ carried (tools/device/build_gpu.sh
# staged it): runs exactly `ctest -L gpu` of a staged build, then nova_torch's pytest tests with the
# staged package and library (every test on CUDA tensors too, and tests/test_cuda.py), and exits
# non-zero if either fails. The staged ctest files name the absolute paths the build had on the machine that
# built it; where such a path does not exist (the GPU machine), it is linked to the carried copy.
# Usage: tools/device/run_gpu_tests.sh [--log FILE] [STAGE]   (default build-cuda; build-cuda-broken: the
# test of the tests). --log FILE: everything goes to FILE, and only the exit status and the two
# summary lines (ctest's, pytest's) are printed. ONLY=REGEX in the environment: only the ctest tests whose
# names match it (ctest -R), and no pytest.
set -euo pipefail
if [ "${1:-}" = --log ]; then
  log=$2
  shift 2
  status=0
  "$0" "$@" >"$log" 2>&1 || status=$?
  echo "gpu tests rc=$status"
  grep -E "tests passed|tests failed| passed" "$log" | tail -3 || true
  exit $status
fi
cd "$(dirname "$0")/../.."
. tools/device/stage.sh
use_stage "${1:-build-cuda}"
built_at=$(cat "$stage.path")
if [ ! -e "$built_at" ]; then
  mkdir -p "$(dirname "$built_at")"
  ln -s "$PWD/$stage" "$built_at"
fi
# The build tree sat in the source root: the tests' data (NOVA_JIT_DATA) is named from there.
[ -e "$(dirname "$built_at")/tests" ] || ln -s "$PWD/tests" "$(dirname "$built_at")/tests"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
if [ -n "${ONLY:-}" ]; then  # a partial run where device time is short: these ctest tests alone, no pytest
  ctest --test-dir "$stage" -L gpu -R "$ONLY" --output-on-failure --timeout 900
  exit $?
fi
status=0
ctest --test-dir "$stage" -L gpu --output-on-failure --timeout 900 || status=1
PYTHONPATH="$PWD/$stage" NOVA_RUNTIME_LIBRARY="$PWD/$stage/runtime/libnova_runtime.so" \
  NOVA_JIT_LIBRARY="$PWD/$stage/jit/libnova_jit.so" \
  python3 -m pytest -q -p no:cacheprovider pytorch/tests || status=1
exit $status
