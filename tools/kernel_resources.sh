#!/usr/bin/env bash
# Registers, spills, stack and shared memory of every generated kernel for sm_90a (the build's
# target: the wgmma kernels have code only there; the MFMA kernels are empty on NVIDIA), as ptxas
# reports them (nvcc --resource-usage), as a Markdown table. Needs nvcc, no GPU.
# Usage: tools/kernel_resources.sh [KERNEL_FILE.hip ...]   (default: generated/*_kernels.hip)
set -euo pipefail
cd "$(dirname "$0")/.."
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(generated/*_kernels.hip)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "| config | kernel | registers | spill stores (B) | spill loads (B) | stack (B) | shared (B) |"
echo "|---|---|---|---|---|---|---|"
for file in "${files[@]}"; do
  "$nvcc" -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -x cu -Iruntime/kernels/include -Igenerated --resource-usage \
    -c "$file" -o "$work/kernels.o" 2>&1 |
    awk '
      /Function properties for/ { name = $NF; stack = 0; stores = 0; loads = 0 }
      /bytes stack frame/       { stack = $1; stores = $5; loads = $9 }
      /Used [0-9]+ registers/   {
        smem = 0
        if (match($0, /[0-9]+ bytes smem/)) smem = substr($0, RSTART, RLENGTH - 11)
        print name, $5, stores, loads, stack, smem
      }' |
    while read -r symbol registers stores loads stack smem; do
      # nova_<config>_<kernel> (nova::kernels::kernel_symbol), e.g. nova_f6x3_nova_input_nhwc_f16
      config=$(echo "$symbol" | sed -E 's/^nova_(.*)_(filter|input|output|fused_mma|fused_wgmma|fused_mfma)_.*$/\1/')
      kernel=${symbol#nova_"$config"_}
      echo "| $config | $kernel | $registers | $stores | $loads | $stack | $smem |"
    done | LC_ALL=C sort
done
