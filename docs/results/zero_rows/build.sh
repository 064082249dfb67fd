#!/usr/bin/env bash
# Here, from the repository root at 5073a61: the small build of zero_rows.patch (tcfrag: ../tc_table/build.sh).
set -euo pipefail
git apply docs/results/zero_rows/zero_rows.patch && tools/device/build_small.sh zerotrim && git apply -R docs/results/zero_rows/zero_rows.patch
