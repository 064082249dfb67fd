#!/usr/bin/env bash
# Here: the three small builds of device.sh, from bf306bd (run from the repository root at that commit).
set -euo pipefail
git worktree add /tmp/base_tree HEAD && tools/device/build_small.sh base /tmp/base_tree
git worktree add /tmp/fence_tree HEAD && (cd /tmp/fence_tree && git apply "$OLDPWD/docs/results/paired_rows/fence_after_wait.patch")
tools/device/build_small.sh fence /tmp/fence_tree
git apply docs/results/paired_rows/paired_rows.patch && tools/device/build_small.sh rolled && git apply -R docs/results/paired_rows/paired_rows.patch
