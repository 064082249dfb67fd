#!/usr/bin/env bash
# Here: the small builds of device.sh and device_all_rows.sh, from bf306bd (run from the repository root at that commit).
set -euo pipefail
git worktree add /tmp/base_tree HEAD && tools/device/build_small.sh base /tmp/base_tree
git worktree add /tmp/fence_tree HEAD && (cd /tmp/fence_tree && git apply "$OLDPWD/docs/results/paired_rows/fence_after_wait.patch")
tools/device/build_small.sh fence /tmp/fence_tree
for build in rolled:paired_rows rolled3:all_rows_paired; do
  patch=docs/results/paired_rows/${build#*:}.patch
  git apply "$patch" && tools/device/build_small.sh "${build%%:*}" && git apply -R "$patch"
done
