#!/usr/bin/env bash
# Fused v5.31, the grid's last wave of tile groups in halves, on the GPU machine: two small builds carried
# (CONFIGS="f4x3_standard f2x3_standard" tools/device/build_small.sh: .device/wgb_base.tar.xz of the commit
# before, .device/wgb_halves.tar.xz of the change). From the repository root; packs $OUT/r.tar.gz:
#   - kernel.txt: the wgmma kernel forced, f4x3_standard, both layouts, the builds in turn, twice
#     (../wgmma_bounds/device.sh), on the layers whose schedule changes (VGG-16 64@224 b1: 64 of its 196 groups
#     of 16 in 128 halves; ResNet-50 64@56 b1: its 13 groups in 25 halves) and three whose schedule does not;
#   - randSEED_BUILD.csv/.log: nova-bench-conv --random 300 --seed SEED (every configuration of each shape
#     timed, the wgmma kernel among them) with each build, for SEEDS (default "232 233"); compare.py reads them;
#   - ncu_64x224_b1_*: Nsight Compute's full set of the NHWC kernel at VGG-16 64@224 b1 in both builds
#     (tools/device/ncu_ab.sh, SOURCE=1);
#   - spills_BUILD.txt: each wgmma kernel's local-memory stores and loads in the SASS (cuobjdump), with the
#     three instructions before each, to place a spill.
set -u
o=$OUT/r
mkdir -p "$o"
for build in base halves; do
  . tools/device/stage.sh && use_stage wgb_$build
  cuobjdump -sass "$stage/runtime/libnova_runtime.so" | awk '
    /Function :/ { name = $3; keep = name ~ /wgmma/ }
    keep { last[NR % 4] = $0 }
    keep && /STL|LDL/ { print name; for (i = NR - 3; i <= NR; ++i) print "  " last[i % 4] }' >"$o/spills_$build.txt"
  echo "$build: $(grep -c '^nova' "$o/spills_$build.txt") local-memory instructions in wgmma kernels"
done
VARIANTS="base halves" LAYERS="64,224,1 64,56,1 64,56,8 64,224,8 64,224,32" docs/results/wgmma_bounds/device.sh | tee "$o/kernel.txt"
. tools/device/stage.sh
for seed in ${SEEDS:-232 233}; do
  for build in base halves; do
    use_stage wgb_$build
    dir=$(mktemp -d)
    stage_bench "$dir" --random 300 --seed "$seed" >"$o/rand${seed}_$build.log" 2>&1
    cp "$dir/random.csv" "$o/rand${seed}_$build.csv"
    echo "seed $seed $build: $(tail -1 "$o/rand${seed}_$build.log")"
  done
done
NEW=wgb_halves BASE=wgb_base NOVA_FUSED_KERNEL=wgmma SOURCE=1 tools/device/ncu_ab.sh 64,224,1 f4x3_standard \
  fused_wgmma_nhwc_f16_v0 fused_wgmma_nhwc_f16_v0 "$o/ncu_64x224_b1" 2>&1 | tail -8
gzip "$o"/rand*.csv
tar czf "$OUT/r.tar.gz" -C "$OUT" r
