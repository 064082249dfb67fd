#!/usr/bin/env bash
# Registers and spills of the prototype's f4x3_standard kernels (tools/kernel_resources.sh, sm_90a): a
# worktree of ab3f0e5 with experiment.patch applied, compiled without the macros (= ab3f0e5), with fp16
# arithmetic (half2), and with it the next patches ahead (two items: ahead2; four: ahead4):
# resources_<form>.txt, and the kernels that spill. From the repository root; needs nvcc, no GPU.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=$PWD/docs/results/half2_input
work=$(mktemp -d)
trap 'git worktree remove --force "$work/tree" >/dev/null 2>&1; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/tree" ab3f0e5
git -C "$work/tree" apply "$out/experiment.patch"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
for form in "base" "half2 -DNOVA_PROTO_HALF2" "ahead2 -DNOVA_PROTO_HALF2 -DNOVA_PROTO_AHEAD=2" \
  "ahead4 -DNOVA_PROTO_HALF2 -DNOVA_PROTO_AHEAD=4"; do
  set -- $form
  name=$1
  shift
  printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$nvcc" "$*" >"$work/nvcc" && chmod +x "$work/nvcc"
  NVCC=$work/nvcc "$work/tree/tools/kernel_resources.sh" generated/f4x3_standard_kernels.hip >"$out/resources_$name.txt"
  echo "$name: $(awk -F'|' 'NR > 2 && ($5 + 0 > 0 || $6 + 0 > 0) { printf "%s spills %s/%s B; ", $3, $5, $6 }' \
    "$out/resources_$name.txt")"
done
