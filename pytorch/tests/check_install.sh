#!/usr/bin/env bash
# Installs the build into a scratch prefix and checks that nova_torch imports from there, loads the
# installed libnova_runtime (not the build tree's) and convolves like PyTorch.
# Usage: check_install.sh BUILD_DIR PYTHON SCRATCH PYTHON_INSTALL_DIR
set -euo pipefail
build=$1 python=$2 scratch=$3 python_dir=$4
rm -rf "$scratch"
cmake --install "$build" --prefix "$scratch" >/dev/null
cd "$scratch"  # not the build tree: python puts the working directory first on its path
PYTHONPATH="$scratch/$python_dir" "$python" - "$scratch" <<'PY'
import os, sys
import torch
import nova_torch
scratch = os.path.realpath(sys.argv[1])
assert os.path.realpath(nova_torch.__file__).startswith(scratch), nova_torch.__file__
assert os.path.realpath(nova_torch.LIBRARY_PATH).startswith(scratch), nova_torch.LIBRARY_PATH
x, w = torch.randn(2, 3, 9, 9, dtype=torch.float64), torch.randn(4, 3, 3, 3, dtype=torch.float64)
y = nova_torch.conv2d(x.float(), w.float())
ref = torch.nn.functional.conv2d(x, w, padding=1)
err = ((y.double() - ref).norm() / ref.norm()).item()
assert err < 1e-5, err
print(f"installed nova_torch at {os.path.dirname(nova_torch.__file__)} with {nova_torch.LIBRARY_PATH}: error {err:.1e}")
PY
