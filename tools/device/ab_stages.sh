#!/usr/bin/env bash
# A/B of two staged builds on the GPU machine: the committed build (.device/base, or .device/base.tar.xz
# made from a staged build-cuda before the change) against the staged one (.device/build-cuda), the two
# alternating in each run, one call of the staged build's nova-bench-conv (with either build's libraries)
# per layer, transform and element type. Prints,
# sorted, "C,HW,N transform dtype build run: <layout> graph µs | in gemm out: stage µs" for each layout
# asked (NHWC-3 and NCHW-3: the forced 3-pass rows; NHWC-f, NCHW-f: the fused ones; NHWC, NCHW: AUTO);
# the lines are also in $OUT/ab.txt (tools/device/ab_table.py puts both builds of a row side by side),
# each call's log and CSV files under /tmp/ab.
# Run from the repository root with the staged archive and .device/build-cuda.path carried, and the base
# archive where BUILDS names base.
# Environment: LAYERS (default "128,112,32 256,56,32 64,224,32 64,56,32 512,28,32"), TRANSFORMS
# (default "f6x3_fp16 f4x3_standard"), DTYPES (default fp16), RUNS (default "1 2"), LAYOUTS (default
# "NHWC-3 NCHW-3"), BUILDS (default "base new": the builds in the order each run takes them; another
# name is a further staged build, .device/NAME, .device/NAME.tar.xz or a tools/device/pack_ab.sh delta, for
# several steps in one call).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/o}
mkdir -p "$out"
. tools/device/stage.sh
use_stage build-cuda
use_base_if_named ${BUILDS:-base new}
for run in ${RUNS:-1 2}; do
  for build in ${BUILDS:-base new}; do
    case $build in
      base) root=.device/base ;;
      new) root=$stage ;;
      *) unpack_stage "$build" && root=.device/$build ;;
    esac
    for layer in ${LAYERS:-128,112,32 256,56,32 64,224,32 64,56,32 512,28,32}; do
      for transform in ${TRANSFORMS:-f6x3_fp16 f4x3_standard}; do
        for dtype in ${DTYPES:-fp16}; do
          d=/tmp/ab/$build$run-$transform-$dtype-${layer//,/_}
          mkdir -p "$d"
          LD_LIBRARY_PATH=$root/runtime:$root/jit $stage/tools/device/nova-bench-conv "$d" --layer "$layer" \
            --transform "$transform" --dtype "$dtype" >"$d.log" 2>&1 || echo "FAIL $build $layer $transform $dtype"
          for layout in ${LAYOUTS:-NHWC-3 NCHW-3}; do
            graph=$(awk -F, -v l="$layout" '$5 == l { print $10; exit }' "$d/speed.csv" 2>/dev/null)
            stages=$(awk -F, -v l="$layout" '$5 == l { print $9, $10, $11; exit }' "$d/stages.csv" 2>/dev/null)
            echo "$layer $transform $dtype $build $run: $layout $graph | in gemm out: $stages" >>"$out/ab.txt"
          done
        done
      done
    done
  done
done
sort "$out/ab.txt"
