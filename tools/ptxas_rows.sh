#!/usr/bin/env bash
# Reads nvcc --resource-usage output on stdin and prints one Markdown row a kernel (unsorted):
#   | config | kernel | registers | spill stores (B) | spill loads (B) | stack (B) | shared (B) |
# config and kernel from the symbol nova_<config>_<kernel> (nova::kernels::kernel_symbol), e.g.
# nova_f6x3_nova_input_nhwc_f16. Used by tools/kernel_resources.sh and the register gate of
# tools/check_kernel_compile.sh.
set -euo pipefail
awk '
  /Function properties for/ { name = $NF; stack = 0; stores = 0; loads = 0 }
  /bytes stack frame/       { stack = $1; stores = $5; loads = $9 }
  /Used [0-9]+ registers/   {
    smem = 0
    if (match($0, /[0-9]+ bytes smem/)) smem = substr($0, RSTART, RLENGTH - 11)
    print name, $5, stores, loads, stack, smem
  }' |
  while read -r symbol registers stores loads stack smem; do
    config=$(echo "$symbol" | sed -E 's/^nova_(.*)_(filter|input|output|fused_mma|fused_wgmma|fused_mfma)_.*$/\1/')
    kernel=${symbol#nova_"$config"_}
    echo "| $config | $kernel | $registers | $stores | $loads | $stack | $smem |"
  done
