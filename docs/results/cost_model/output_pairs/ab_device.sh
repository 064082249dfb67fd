#!/usr/bin/env bash
# The seventeenth session's A/B of the refit on the GPU machine: AUTO on fresh random shapes (seeds in
# SEEDS, default "107 108 109") with the committed fit (.device/base: the build of 872702e) and the
# refit (the staged build), both through the staged bench (its fastest configuration and AUTO timed
# again in turns); then, unless SKIP_TESTS=1, the GPU tests of the staged build. Everything goes into
# $OUT/ab.tar (rewritten after each seed, so that a cut-off run still returns what it measured).
# Run from the repository root with .device/build-cuda.tar.xz, .device/build-cuda.path and
# .device/base.tar.xz carried.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/o}
work=/tmp/refit_ab
mkdir -p "$out" "$work"
for seed in ${SEEDS:-107 108 109}; do
  SEEDS=$seed AUTO_BUILDS="${BUILDS:-base new}" OUT=$work bash tools/device/auto_random.sh
  tar cf "$out/ab.tar" -C "$work" .
done
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  tools/device/run_gpu_tests.sh --log "$work/gpu_tests.txt"
  tar cf "$out/ab.tar" -C "$work" .
fi
