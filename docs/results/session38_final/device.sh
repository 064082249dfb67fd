#!/usr/bin/env bash
# The thirty-eighth session's build (AUTO refitted with the tensor-core input path's term: ../tc_choice/) on the
# GPU machine, from the repository root, with .device/build-cuda.tar.xz and .device/build-cuda.path carried. In
# this order, each part where asked: AUTO against every configuration on 300 fresh random shapes with C = 64 and
# K up to 64 for each seed in TC_SEEDS (tools/device/auto_random.sh with RANDOM_C=64) and on 300 free ones for
# each seed in SEEDS, the whole GPU suite where TESTS=1, and the full fp16 speed table for each run name in RUNS
# (../session27_final/device.sh). Everything under $OUT is packed into $OUT/r.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r/auto_random"
if [ -n "${TC_SEEDS:-}" ]; then
  SEEDS=$TC_SEEDS RANDOM_C=64 OUT=$out/r/auto_random tools/device/auto_random.sh
  gzip "$out"/r/auto_random/*.csv
fi
mkdir -p "$out/rest"
OUT=$out/rest docs/results/session27_final/device.sh
tar xzf "$out/rest/r.tar.gz" -C "$out/rest" && cp -r "$out/rest/r/." "$out/r/" && rm -rf "${out:?}/rest"
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
