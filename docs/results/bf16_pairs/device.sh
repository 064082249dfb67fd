#!/usr/bin/env bash
# One device call of the fifteenth session (bf16 storage pairs in one register): the GPU tests of the
# staged build (SKIP_TESTS=1: none), then the bench's --quick table in bf16 (the nine layers at batch 32,
# both layouts, against cuDNN bf16; DTYPE=fp16: fp16) with the committed build (.device/base.tar.xz) and the staged one,
# alternating RUNS times (default 1). Each table goes to $OUT/<build><run>.log with its CSV files in
# $OUT/<build><run>/. Run on the device from the repository root with .device/build-cuda.tar.xz,
# .device/build-cuda.path and .device/base.tar.xz carried.
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/o}
mkdir -p $out
[ -n "${SKIP_TESTS:-}" ] || tools/device/run_gpu_tests.sh --log $out/gpu_tests.txt
. tools/device/stage.sh
use_stage build-cuda
[ -d .device/base ] || tar xJf .device/base.tar.xz -C .device
for run in $(seq 1 ${RUNS:-1}); do
  for build in base new; do
    root=.device/base
    [ $build = new ] && root=$stage
    mkdir -p $out/$build$run
    LD_LIBRARY_PATH=$root/runtime:$root/jit $root/tools/device/nova-bench-conv $out/$build$run --quick --dtype ${DTYPE:-bf16} \
      >$out/$build$run.log 2>&1 || echo "FAIL $build $run"
  done
done
for log in $out/*[0-9].log; do
  echo "== $(basename $log .log): NOVA/cuDNN graph ratios, batch 32 (AUTO rows)"
  awk '$4 == 32 && ($5 == "NHWC" || $5 == "NCHW") { print $1, $2 "@" $3, $5, $6, $(NF-2), $(NF-1), $NF }' $log
done
