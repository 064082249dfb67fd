#!/usr/bin/env bash
# Whether a kernel file compiles for sm_90a to the same cubin at two commits (fourteenth session: the
# launch bounds moved into NOVA_SMALL_PAIR_INPUT_BOUNDS after the measured build c3c25b2).
# Usage: docs/results/f6x3_transforms/same_cubin.sh [COMMIT] [STEM]   (default c3c25b2 f6x3_fp16); needs nvcc.
set -euo pipefail
cd "$(dirname "$0")/../../.."
commit=${1:-c3c25b2} stem=${2:-f6x3_fp16}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git archive "$commit" runtime/kernels/include generated | tar x -C "$work"
compile() {  # root, output
  nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -x cu -I"$1/runtime/kernels/include" -I"$1/generated" \
    -cubin "$1/generated/${stem}_kernels.hip" -o "$2"
}
compile "$work" "$work/then.cubin"
compile "$PWD" "$work/now.cubin"
cmp "$work/then.cubin" "$work/now.cubin" && echo "same cubin: generated/${stem}_kernels.hip at $commit and in the tree"
