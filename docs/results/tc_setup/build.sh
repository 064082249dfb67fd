#!/usr/bin/env bash
# Here: the small builds of device.sh and device_parts.sh, from bf306bd (run from the repository root at that commit;
# base as in ../paired_rows/build.sh).
set -euo pipefail
for build in nosetup:no_setup notable:no_table nozero:no_zero; do
  patch=docs/results/tc_setup/${build#*:}.patch
  git apply "$patch" && tools/device/build_small.sh "${build%%:*}" && git apply -R "$patch"
done
