#!/usr/bin/env bash
# The error of the F(2,3) and F(4,3) transforms whose input-transform constants are exact in fp16, under
# the kernels' model (kernel-fp16: transforms in fp32) and with the input transform alone in fp16
# arithmetic (--input-compute-type fp16), C = K = 64, 262,144 tiles, seed 1: errlab.txt.
# Usage (from the repository root, after a build): docs/results/half2_input/errlab.sh [BUILD_DIR]
set -euo pipefail
errlab=${1:-build}/errlab/nova-errlab
configs=(configs/f2x3_standard.json configs/f4x3_standard.json configs/f4x3_fp16_dyadic.json configs/f4x3_nova_dyadic.json
  configs/f4x3_kappa_dyadic.json)
run() { "$errlab" --tiles 262144 --format csv "$@" "${configs[@]}" | awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
  { print $col["config"], $col["amp2D"], $col["predicted_error"], $col["rel_l2_error"] }'; }
echo "| config | amp2D | 0.7 u amp2D | input arithmetic fp32 | fp16 | fp16 / fp32 |"
echo "|---|---|---|---|---|---|"
join <(run | sort) <(run --input-compute-type fp16 | awk '{ print $1, $4 }' | sort) |
  awk '{ printf "| %s | %.3g | %.3g | %.3g | %.3g | %.2f |\n", $1, $2, $3, $4, $5, $5 / $4 }'
