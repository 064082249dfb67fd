#!/usr/bin/env bash
# Here: the small builds of device*.sh, from the repository root. base: bf306bd (as in ../paired_rows/build.sh; its
# kernels are those of 36f0f38, the commit before Fused v5.40). tctable: 36f0f38 with compile_time_table.patch (B^T (x)
# B^T made at compile time, the fragments still made from it at run time), its nova-codegen built from the patched
# tree. tcfrag: the commit of Fused v5.40 (the fragments themselves made at compile time).
set -euo pipefail
case ${1:-tcfrag} in
  tctable)
    git apply docs/results/tc_table/compile_time_table.patch
    cmake --build build --target nova-codegen
    tools/device/build_small.sh tctable
    git apply -R docs/results/tc_table/compile_time_table.patch ;;
  tcfrag) tools/device/build_small.sh tcfrag ;;
esac
