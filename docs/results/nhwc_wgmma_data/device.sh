#!/usr/bin/env bash
# Training data for a cost-model fit in which AUTO may run the wgmma kernel on NHWC images: the random-shape
# bench (tools/device/auto_random.sh: every configuration within the budget timed by graph replay on 300
# shapes a seed) with the wgmma kernel forced wherever it runs (NOVA_FUSED_KERNEL=wgmma; elsewhere the fused
# rows are the mma.sync kernel's), the build of fused v5.20. Its AUTO column is not AUTO's real choice (the
# cost model prices the forced kernel with its NCHW fit). rand<SEED>_new.csv (gzipped here since the thirtieth session)/.log; $OUT/r.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/o}
mkdir -p "$out/r"
NOVA_FUSED_KERNEL=wgmma SEEDS=${SEEDS:-154 155 156 157} OUT=$out/r tools/device/auto_random.sh
tar czf "$out/r.tar.gz" -C "$out" r && rm -rf "${out:?}/r"
