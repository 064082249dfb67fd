#!/usr/bin/env bash
# Registers, LDS, scratch, spills and v_mfma count of every generated kernel for AMD, read from the
# code object metadata clang-19 writes (tools/check_kernel_compile.sh with NOVA_KERNEL_TABLE, so the
# same compile as the CI checks), with the waves per SIMD the registers allow, as Markdown:
# docs/results/amd_kernel_resources.md. Needs clang-19 and ROCm's device libraries, no GPU.
#   gfx942 (MI300X, CDNA3, wave64)    every generated/*_kernels.hip
#   gfx90a (MI200, CDNA2, wave64)     the representative subset of the compile checks
#   gfx1100 (RDNA3, wave32)           the same subset          (tests/codegen/CMakeLists.txt)
# A kernel the MFMA gate fails keeps its row, with the gate's reasons in the notes column; the script
# then exits 1 after writing the whole table. A file that does not compile fails the script.
# Usage: tools/amd_kernel_resources.sh [OUTPUT.md]   (CLANG=clang++-19, JOBS=$(nproc))
set -euo pipefail
cd "$(dirname "$0")/.."
output=${1:-docs/results/amd_kernel_resources.md}
clang=${CLANG:-clang++-19}
jobs=${JOBS:-$(nproc)}
command -v "$clang" >/dev/null || { echo "amd_kernel_resources: no $clang (apt-get install clang-19)" >&2; exit 77; }
representative=$(sed -n 's/^set(NOVA_REPRESENTATIVE_TRANSFORMS \(.*\))$/\1/p' tests/codegen/CMakeLists.txt)
[ -n "$representative" ] || { echo "amd_kernel_resources: no NOVA_REPRESENTATIVE_TRANSFORMS in tests/codegen/CMakeLists.txt" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One compile per target and file, $jobs at a time: $work/ARCH.STEM.{tsv,log,rc}.
# $work/ARCH.STEM.llvm: LLVM's own occupancy of each kernel ("; Occupancy: N" after its code).
compile() {  # arch, file
  local base=$work/$1.$(basename "$2" .hip) rc=0
  NOVA_KERNEL_TABLE=$base.tsv NOVA_KERNEL_ASM=$base.s tools/check_kernel_compile.sh "hip-$1" "$clang" "$2" >"$base.log" 2>&1 ||
    rc=$?
  if [ -f "$base.s" ]; then
    awk '/^\t\.size\t/ { name = $2; sub(/,$/, "", name) } /^; Occupancy: / { print name "\t" $3 }' "$base.s" >"$base.llvm"
    rm -f "$base.s"
  fi
  echo "$rc" >"$base.rc"
}
targets=(gfx942 gfx90a gfx1100)
for arch in "${targets[@]}"; do
  for file in generated/*_kernels.hip; do
    stem=$(basename "$file" .hip)
    [ "$arch" = gfx942 ] || [[ " $representative " == *" ${stem%_kernels} "* ]] || continue
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    echo "amd_kernel_resources: $arch $stem" >&2
    compile "$arch" "$file" &
  done
done
wait

status=0
for base in "$work"/*.rc; do
  base=${base%.rc} rc=$(cat "$base.rc")
  case $rc in
    0) ;;
    77) cat "$base.log" >&2; echo "amd_kernel_resources: skipped (see above)" >&2; exit 77 ;;
    *) if ! grep -q "^MFMA gate: .*: " "$base.log"; then  # not (only) the gate: the file did not compile
         cat "$base.log" >&2; echo "amd_kernel_resources: $(basename "$base") failed to compile" >&2; exit 1
       fi
       status=1 ;;
  esac
done

# Occupancy in waves per SIMD from the registers (LDS and workgroup size left out), as LLVM 19
# computes it in llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp (IsaInfo::getTotalNumVGPRs,
# getVGPRAllocGranule, getMaxWavesPerEU, getNumWavesPerEUWithNumVGPRs, getOccupancyWithNumSGPRs):
#   gfx90a, gfx942 (FeatureGFX90AInsts): one unified file of 512 VGPRs+AGPRs a lane per SIMD, granule
#     8, at most 8 waves; .vgpr_count is already the unified count (AGPRs from the 4-aligned
#     accum_offset on), so it is divided as it is. SGPRs (GFX9: 800 a SIMD) allow 8 waves up to 100,
#     7 beyond (the table's 10 and 9 for <= 80 and <= 88 are above the cap).
#   gfx1100 wave32 (FeatureGFX11FullVGPRs in AMDGPU.td, Navi31/32 only, not gfx1102/gfx1103): 1536
#     VGPRs a lane per SIMD, granule 24, at most 16 waves (GFX10.3+); SGPRs do not limit (GFX10+:
#     a fixed allocation a wave).
# LLVM prints its own figure after each kernel ("; Occupancy: N"), which also counts static LDS and
# the launch bounds' workgroup size: a higher one than this means the formula is wrong (the script
# fails); a lower one goes to the notes.
# Columns of $work/*.tsv (check_kernel_compile.sh): name vgpr agpr sgpr lds scratch dynamic_stack
# vgpr_spills sgpr_spills wave_size v_mfma.
rows() {  # arch
  local arch=$1 total granule max_waves wave_size sgpr_binds
  case $arch in
    gfx942 | gfx90a) total=512 granule=8 max_waves=8 wave_size=64 sgpr_binds=1 ;;
    gfx1100) total=1536 granule=24 max_waves=16 wave_size=32 sgpr_binds=0 ;;
  esac
  for base in "$work/$arch".*.rc; do
    base=${base%.rc}
    # The gate's reasons, one line per kernel: "MFMA gate: NAME: REASONS".
    sed -n 's/^MFMA gate: \([A-Za-z0-9_]*\): \(.*\)$/\1\t\2/p' "$base.log" >"$base.gate"
    awk -F'\t' -v total=$total -v granule=$granule -v max_waves=$max_waves -v wave_size=$wave_size \
        -v sgpr_binds=$sgpr_binds -v arch="$arch" '
      FILENAME ~ /\.gate$/ { gate[$1] = $2; next }
      FILENAME ~ /\.llvm$/ { llvm[$1] = $2; next }
      {
        if ($10 != wave_size) { print "amd_kernel_resources: " $1 " on " arch " has wave size " $10 > "/dev/stderr"; exit 2 }
        # nova_<config>_<kernel> (nova::kernels::kernel_symbol), e.g. nova_f6x3_nova_input_nhwc_f16
        config = $1; sub(/^nova_/, "", config); sub(/_(filter|input|output|fused_mma|fused_wgmma|fused_mfma)_.*$/, "", config)
        kernel = substr($1, length("nova_" config "_") + 1)
        waves = max_waves; limit = ""
        if ($2 >= granule) {
          regs = int(($2 + granule - 1) / granule) * granule
          by_vgpr = int(total / regs); if (by_vgpr < 1) by_vgpr = 1
          if (by_vgpr < waves) { waves = by_vgpr; limit = " (VGPRs)" }
        }
        if (sgpr_binds && $4 > 100 && 7 < waves) { waves = 7; limit = " (SGPRs)" }
        if (!($1 in llvm)) { print "amd_kernel_resources: no LLVM occupancy for " $1 " on " arch > "/dev/stderr"; exit 2 }
        if (llvm[$1] > waves) {
          print "amd_kernel_resources: " $1 " on " arch ": LLVM allows " llvm[$1] " waves, the formula " waves > "/dev/stderr"; exit 2
        }
        note = ""
        if ($1 in gate) note = "**MFMA gate fails: " gate[$1] "**"
        if ($7 == "true") note = note (note == "" ? "" : "; ") "dynamic stack"
        if ($2 == 0 && $11 == 0) { note = note (note == "" ? "" : "; ") "a trap: no code for this target"; waves = "-"; limit = "" }
        else if (llvm[$1] < waves) note = note (note == "" ? "" : "; ") "LLVM: " llvm[$1] " waves (launch bounds or static LDS)"
        printf "| %s | %s | %d | %d | %d | %d | %d | %d | %d | %d | %s | %s |\n",
               config, kernel, $2, $3, $4, $5, $6, $8, $9, $11, waves limit, note
      }' "$base.gate" "$base.llvm" "$base.tsv"
  done | LC_ALL=C sort
}

describe() {  # arch
  case $1 in
    gfx942) echo "gfx942 (MI300X, CDNA3, wave64): every kernel file" ;;
    gfx90a) echo "gfx90a (MI200, CDNA2, wave64): the representative transforms' files (${representative// /, })" ;;
    gfx1100) echo "gfx1100 (RDNA3, wave32): the representative transforms' files (${representative// /, })" ;;
  esac
}

if [ -n "${NOVA_ROCM_BITCODE:-}" ]; then
  libraries="the bitcode in $NOVA_ROCM_BITCODE"
else
  libraries="Debian's rocm-device-libs $(dpkg-query -W -f='${Version}' rocm-device-libs 2>/dev/null || echo "(version unknown)")"
fi
{
  cat <<EOF
# AMD kernel resources

Made by \`tools/amd_kernel_resources.sh\` (no GPU needed; several minutes on two cores) with
$("$clang" --version | head -1) and $libraries
(ROCm's device libraries). Each kernel file goes through \`tools/check_kernel_compile.sh hip-ARCH\`,
the CI compile check (\`-O3\`, device code to ISA assembly), and the numbers are that assembly's code
object metadata. Rows are sorted, so a rerun on the same sources diffs cleanly.

Columns: **VGPRs** \`.vgpr_count\` (on gfx90a/gfx942 the unified VGPR+AGPR count a lane), **AGPRs**
\`.agpr_count\` (accumulation registers, CDNA only), **SGPRs** \`.sgpr_count\` (VCC and the other
reserved SGPRs included), **LDS** \`.group_segment_fixed_size\`, static LDS only, **scratch**
\`.private_segment_fixed_size\` a lane, **spills** \`.vgpr_spill_count\` and \`.sgpr_spill_count\`,
**v_mfma** the matrix instructions in the kernel's own body, **waves/SIMD** the occupancy the
registers allow and the resource that limits it: gfx90a/gfx942 have 512 unified registers a lane
per SIMD in granules of 8, at most 8 waves, 7 with more than 100 SGPRs; gfx1100 (wave32) 1536 VGPRs
in granules of 24, at most 16 waves, SGPRs do not limit (LLVM 19, AMDGPUBaseInfo.cpp; the script's
comment names the functions). The script checks each figure against LLVM's own (\`; Occupancy:\` in
the assembly), which also counts static LDS and the launch bounds' workgroup size; where LLVM's is
lower, the notes say so. Dynamic LDS is not counted.

The fused kernels' LDS is dynamic, set at launch, so it is 0 here: \`fused_mfma_shared_bytes\` in
runtime/kernels/include/nova/kernels/fused_mfma_kernels.hpp gives the MFMA kernel's bytes
(\`fused_shared_bytes\` in fused_kernels.hpp the mma kernel's). The wgmma kernels have code only for
sm_90a, the MFMA kernels only for CDNA (gfx90a, gfx94x) and the mma.sync kernels (a portable product
on AMD) only off CDNA, which runs every fused forward on the MFMA kernel: elsewhere their bodies are
a trap (noted, no occupancy). The MFMA gate (every \`fused_mfma\` kernel on gfx90a/gfx942: no scratch, dynamic
stack or spills, at least one v_mfma; CI fails on it) marks the kernels it fails in the notes.
EOF
  for arch in "${targets[@]}"; do
    table=$(rows "$arch")
    echo
    echo "## $(describe "$arch")"
    echo
    failed=$(grep -c "MFMA gate fails" <<<"$table" || true)
    if [ "$arch" = gfx1100 ]; then
      echo "$(wc -l <<<"$table") kernels (no MFMA gate: wave32, no CDNA matrix cores)."
    else
      echo "$(wc -l <<<"$table") kernels; the MFMA gate fails $failed."
    fi
    echo
    echo "| config | kernel | VGPRs | AGPRs | SGPRs | LDS (B) | scratch (B) | VGPR spills | SGPR spills | v_mfma | waves/SIMD | notes |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    echo "$table"
  done
} >"$work/table.md"
mv "$work/table.md" "$output"
echo "amd_kernel_resources: wrote $output" >&2
if [ $status -ne 0 ]; then
  echo "amd_kernel_resources: the MFMA gate fails these kernels (rows kept, marked in the notes):" >&2
  cat "$work"/*.gate | cut -f1,2 | sed 's/\t/: /; s/^/  /' | LC_ALL=C sort >&2
fi
exit $status
