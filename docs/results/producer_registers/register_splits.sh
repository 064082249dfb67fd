#!/usr/bin/env bash
# The compile checks behind fused v5.20: f4x3_standard's kernels (tools/kernel_resources.sh, nvcc
# --resource-usage, sm_90a) with the wgmma kernel's registers split 128/248 (v5.19's split), 136/232 (kept)
# and 144/216 between a producer and a consumer thread, the rest of the code as committed (both NHWC patches
# of a pass loaded before the first transform): resources_<producer>_<consumer>.txt, and the kernels that
# spill. From the repository root; needs nvcc, no GPU.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=docs/results/producer_registers
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
for split in "128 248" "136 232" "144 216"; do
  set -- $split
  rm -rf "$work/include" && cp -r runtime/kernels/include "$work/include"
  sed -i -e "s/^inline constexpr int kWgProducerRegisters = [0-9]*;/inline constexpr int kWgProducerRegisters = $1;/" \
    -e "s/^inline constexpr int kWgConsumerRegisters = [0-9]*;/inline constexpr int kWgConsumerRegisters = $2;/" \
    "$work/include/nova/kernels/fused_wgmma_kernels.hpp"
  grep -q "kWgProducerRegisters = $1;" "$work/include/nova/kernels/fused_wgmma_kernels.hpp"
  # The copy's headers first: nvcc takes the first -I that has a file.
  printf '#!/bin/sh\nexec "%s" -I"%s" "$@"\n' "$nvcc" "$work/include" >"$work/nvcc" && chmod +x "$work/nvcc"
  NVCC=$work/nvcc tools/kernel_resources.sh generated/f4x3_standard_kernels.hip >"$out/resources_$1_$2.txt"
  echo "producers $1, consumer $2: $(awk -F'|' 'NR > 2 && ($5 + 0 > 0 || $6 + 0 > 0) { printf "%s spills %s/%s B; ", $3, $5, $6 }' \
    "$out/resources_$1_$2.txt")"
done
