#!/usr/bin/env bash
# On the GPU machine, from the repository root, with .device/ carried (tools/device/build_gpu.sh
# staged it): pytorch/bench/whole_models.py with the staged nova_torch and library. Arguments go to
# it (--help lists them); --json "$OUT/models.json" keeps the numbers.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/device/stage.sh
use_stage build-cuda
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
PYTHONPATH="$PWD/$stage:$PWD/pytorch/bench" NOVA_RUNTIME_LIBRARY="$PWD/$stage/runtime/libnova_runtime.so" \
  python3 pytorch/bench/whole_models.py "$@"
