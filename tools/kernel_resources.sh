#!/usr/bin/env bash
# Registers, spills, stack and shared memory of every generated kernel for sm_90a (the build's
# target: the wgmma kernels have code only there; the MFMA kernels are empty on NVIDIA), as ptxas
# reports them (nvcc --resource-usage), as a Markdown table after a line naming the nvcc (the register gate of
# tools/check_kernel_compile.sh compares with docs/results/kernel_resources.md only under that nvcc). Needs nvcc, no GPU.
# Usage: tools/kernel_resources.sh [KERNEL_FILE.hip ...]   (default: generated/*_kernels.hip)
set -euo pipefail
cd "$(dirname "$0")/.."
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(generated/*_kernels.hip)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$nvcc" --version | tail -1 | sed "s/^/ptxas of: /"
echo
echo "| config | kernel | registers | spill stores (B) | spill loads (B) | stack (B) | shared (B) |"
echo "|---|---|---|---|---|---|---|"
for file in "${files[@]}"; do
  "$nvcc" -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -x cu -Iruntime/kernels/include -Igenerated --resource-usage \
    -c "$file" -o "$work/kernels.o" 2>&1 |
    tools/ptxas_rows.sh | LC_ALL=C sort
done
