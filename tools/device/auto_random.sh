#!/usr/bin/env bash
# AUTO on 300 fresh random shapes (nova-bench-conv --random 300 --seed S: AUTO against every
# configuration of each shape, in the same run) for each seed in SEEDS and each build in AUTO_BUILDS
# (default new: the staged .device/build-cuda; base: .device/base, the committed build an A/B
# compares with); RANDOM_C=C fixes the shapes' C (bench --random-c). The staged build's bench runs either
# build's libraries, so that both are measured
# alike. Writes $OUT/randSEED_BUILD.log and .csv, prints each log's summary line.
# Run on the GPU machine from the repository root (the device scripts under docs/results/ call it).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tools/device/stage.sh
use_stage build-cuda
use_base_if_named ${AUTO_BUILDS:-new}
out=${OUT:-/tmp/o}
mkdir -p "$out"
for seed in ${SEEDS:-}; do
  for build in ${AUTO_BUILDS:-new}; do
    root=.device/base
    [ "$build" = new ] && root=$stage
    mkdir -p "/tmp/rand$seed$build"
    LD_LIBRARY_PATH=$root/runtime:$root/jit $stage/tools/device/nova-bench-conv "/tmp/rand$seed$build" --random 300 \
      --seed "$seed" ${RANDOM_C:+--random-c "$RANDOM_C"} >"$out/rand${seed}_$build.log" 2>&1
    cp "/tmp/rand$seed$build/random.csv" "$out/rand${seed}_$build.csv" 2>/dev/null
    echo "rand $seed $build: $(tail -1 "$out/rand${seed}_$build.log")"
  done
done
