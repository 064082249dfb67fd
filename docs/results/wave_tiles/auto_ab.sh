#!/usr/bin/env bash
# AUTO on random shapes with the committed build before this change (.device/base: fe42dee, every transform,
# tools/device/build_small.sh base) and the staged one (.device/build-cuda), the same seeds, the staged bench
# for both (tools/device/auto_random.sh with AUTO_BUILDS="base new"). Writes $OUT/randS_BUILD.log and .csv,
# packed into $OUT/auto_ab.tar.gz (the device tool brings back a limited number of files).
set -uo pipefail
AUTO_BUILDS="base new" SEEDS="${SEEDS:-214 215}" tools/device/auto_random.sh
tar czf "$OUT/auto_ab.tar.gz" -C "$OUT" $(cd "$OUT" && ls rand*) && (cd "$OUT" && rm -f rand*)
