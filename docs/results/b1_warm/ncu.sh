#!/usr/bin/env bash
# Nsight Compute of the wgmma kernel's forward of VGG-16 64@224 b1 (two tile groups of 12 an SM) as graph replay leaves
# the caches, by ../one_group_ring/ncu_lone.sh with the small build of bf306bd (.device/base): ncu_lone_64_224_1.txt
# and ncu_lone_64_224_1_source.csv.gz (for tools/device/sass_summary.py --roles).
SHAPES=layer:64,224,1 exec "$(dirname "$0")/../one_group_ring/ncu_lone.sh"
