#!/usr/bin/env bash
# Nsight Compute of one kernel in both builds of an A/B (the committed build, .device/base, and the
# staged one): the sections the performance log quotes, of the first launch whose name matches, in a
# `nova-bench-conv --layer LAYER --transform TRANSFORM` run of the staged bench with each build's
# libraries, the clocks left as the card runs them (--clock-control none). Writes PREFIX_base.txt and
# PREFIX_new.txt and prints their headline lines. With SOURCE=1 it takes Nsight Compute's full set
# instead and also writes each build's per-instruction source page (PREFIX_source_BUILD.csv.gz) and
# its summary by role (PREFIX_roles_BUILD.txt, tools/device/sass_summary.py --roles: wgmma kernels).
# Usage (on the GPU machine, from the repository root, with the builds carried as for ab_stages.sh):
#   tools/device/ncu_ab.sh LAYER TRANSFORM BASE_KERNEL NEW_KERNEL PREFIX
# BUILDS=new (or base) in the environment profiles that build alone; DTYPE=bf16 runs the bench in bf16 (the
# kernels' names then say bf16); NEW=NAME and BASE=NAME profile the staged builds .device/NAME in place of
# build-cuda and base (small builds of tools/device/build_small.sh, say).
# BASE_KERNEL, NEW_KERNEL: the kernel's name in each build after nova_TRANSFORM_ (e.g. output_m16_nchw_f16).
set -uo pipefail
cd "$(dirname "$0")/../.."
layer=$1 transform=$2 base_kernel=$3 new_kernel=$4 prefix=$5
. tools/device/stage.sh
use_stage "${NEW:-build-cuda}"
use_base_if_named ${BUILDS:-base new}
mkdir -p /tmp/ncu
for build in ${BUILDS:-base new}; do
  root=${base:-} kernel=$base_kernel
  [ $build = new ] && root=$stage kernel=$new_kernel
  what=(--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis)
  [ "${SOURCE:-0}" = 1 ] && what=(--set full -f -o /tmp/ncu/$build)
  LD_LIBRARY_PATH=$root/runtime:$root/jit ncu --clock-control none "${what[@]}" --kernel-name "regex:${transform}_${kernel}\$" \
    --launch-count 1 "$stage/tools/device/nova-bench-conv" /tmp/ncu --layer "$layer" --transform "$transform" --dtype "${DTYPE:-fp16}" \
    >"${prefix}_$build.txt" 2>&1
  if [ "${SOURCE:-0}" = 1 ]; then
    ncu --import /tmp/ncu/$build.ncu-rep --page details >"${prefix}_$build.txt" 2>&1
    ncu --import /tmp/ncu/$build.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip >"${prefix}_source_$build.csv.gz"
    python3 tools/device/sass_summary.py --roles "${prefix}_source_$build.csv.gz" >"${prefix}_roles_$build.txt" 2>&1
  fi
  echo "== ncu $kernel $layer $build"
  grep -E "Duration|Registers Per|Achieved Occupancy|Memory Throughput|L2 Cache Throughput|DRAM Throughput" "${prefix}_$build.txt"
done
