#!/usr/bin/env bash
# A PREDICTION of NOVA's MFMA fused kernel on an AMD Instinct MI300X, without one: compiles
# generated/f4x3_standard_kernels.hip and f2x3_standard_kernels.hip for gfx942 (clang-19, through
# tools/check_kernel_compile.sh with NOVA_KERNEL_ASM), counts the fused MFMA kernels' instructions in
# that assembly (nova-gfx942-count's parser, tools/amd/gfx942_asm.hpp), multiplies them by the trip
# counts of the kernel's own launch for each ResNet-50 / VGG-16 3x3 layer (nova-mi300x-model, which
# includes the kernel header) and MI300X's published peaks, and writes, beside the H200 measurements
# of docs/results/fused_v5/full_b1_b8_b32/speed.csv (the final full bench run, the one
# docs/runtime.md's tables use):
#   docs/results/mi300x_prediction.md   the table, the model, the peaks and their sources
#   docs/results/mi300x_prediction.csv  every unit's time, per layer, layout and transform
#   docs/results/mi300x_prediction.png  predicted MI300X beside measured H200 NOVA and cuDNN
# Needs clang-19 and rocm-device-libs (or --asm-dir with the assembly of an earlier run), CMake and a
# C++20 compiler, gnuplot (Debian: gnuplot-nox).
# Usage: tools/amd/predict_mi300x.sh [--build DIR] [--asm-dir DIR] [--speed CSV] [--out DIR]
#   --build DIR    where to build the two programs (default build-pred; configured here if empty)
#   --asm-dir DIR  read f4x3_standard.s and f2x3_standard.s from DIR instead of compiling (about a
#                  minute each); with the compile, the assembly is kept there too
#   --speed CSV    the H200 measurements (default docs/results/fused_v5/full_b1_b8_b32/speed.csv)
#   --out DIR      where the three files go (default docs/results)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build-pred asm_dir="" speed=$root/docs/results/fused_v5/full_b1_b8_b32/speed.csv out=$root/docs/results
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --asm-dir) asm_dir=$2; shift 2 ;;
    --speed) speed=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "predict_mi300x: unknown argument '$1' (--help lists them)" >&2; exit 2 ;;
  esac
done
command -v gnuplot >/dev/null || { echo "predict_mi300x: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
transforms=(f4x3_standard f2x3_standard)

# 1. The assembly.
if [ -n "$asm_dir" ] && [ -f "$asm_dir/f4x3_standard.s" ] && [ -f "$asm_dir/f2x3_standard.s" ]; then
  echo "predict_mi300x: assembly from $asm_dir"
else
  asm_dir=${asm_dir:-$work}
  mkdir -p "$asm_dir"
  compiler=$(command -v clang++-19 || true)
  [ -n "$compiler" ] || { echo "predict_mi300x: clang++-19 not found (apt-get install clang-19 rocm-device-libs)" >&2; exit 1; }
  for t in "${transforms[@]}"; do
    echo "predict_mi300x: compiling generated/${t}_kernels.hip for gfx942"
    NOVA_KERNEL_ASM="$asm_dir/$t.s" "$root/tools/check_kernel_compile.sh" hip-gfx942 "$compiler" "$root/generated/${t}_kernels.hip"
  done
fi
compiler_version=$(grep -m1 -o 'clang version [^"]*' "$asm_dir/f4x3_standard.s" || echo "clang (version not recorded)")

# 2. The programs.
[ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNOVA_WARNINGS_AS_ERRORS=ON >/dev/null
cmake --build "$build" --target nova-gfx942-count nova-mi300x-model >/dev/null

# 3. Counts and model.
mkdir -p "$out"
for t in "${transforms[@]}"; do "$build/tools/amd/nova-gfx942-count" --summary "$asm_dir/$t.s" >"$work/$t.count.tsv"; done
"$build/tools/amd/nova-mi300x-model" --asm "$asm_dir/f4x3_standard.s" --asm "$asm_dir/f2x3_standard.s" --speed "$speed" \
  --csv "$out/mi300x_prediction.csv" --counts "$work/counts.md" >"$work/table.md"

# 4. The plot: per layer and layout, the model's preferred transform (its lower prediction) beside
# the H200's measured NOVA (fastest path) and cuDNN.
awk -F, '
  NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
  {
    key = $col["layer"] " " $col["channels"] "@" $col["size"] " " $col["layout"]
    if (!(key in best) || $col["predicted_mi300x_us"] + 0 < best[key]) best[key] = $col["predicted_mi300x_us"] + 0
    nova[key] = $col["measured_h200_nova_us"] == "" ? "NaN" : $col["measured_h200_nova_us"]
    cudnn[key] = $col["measured_h200_cudnn_us"] == "" ? "NaN" : $col["measured_h200_cudnn_us"]
    if (!(key in seen)) { seen[key] = 1; order[n++] = key }
  }
  END {
    for (i = 0; i < n; ++i) {
      k = order[i]; split(k, part, " ")
      file = part[3] == "NHWC" ? "nhwc.dat" : "nchw.dat"
      printf "\"%s %s\" %s %s %s\n", part[1], part[2], best[k], nova[k], cudnn[k] > (work "/" file)
    }
  }' work="$work" "$out/mi300x_prediction.csv"
{
  echo "set terminal pngcairo noenhanced size 1500,1000 font ',10'"
  echo "set output '$out/mi300x_prediction.png'"
  echo "set multiplot layout 2,1 title 'MI300X, PREDICTED (nothing ran on an AMD GPU) beside H200, MEASURED: 3x3 layers, batch 32, fp16, µs (log scale)'"
  echo "set style data histograms; set style histogram clustered gap 1; set boxwidth 0.9"
  echo "set logscale y; set yrange [5:*]; set grid ytics; set key top left font ',9'"
  echo "set xtics rotate by -25 font ',9'; set ylabel 'µs'"
  for layout in nhwc nchw; do
    echo "set title '${layout^^}'"
    echo "plot '$work/$layout.dat' using 2:xtic(1) title 'MI300X, predicted (MFMA fused kernel, preferred transform)' fs pattern 4 border lc rgb '#d62728', \
'' using 3 title 'H200, measured: NOVA (fastest path)' fs solid 0.8 lc rgb '#1f77b4', \
'' using 4 title 'H200, measured: cuDNN' fs solid 0.8 lc rgb '#7f7f7f'"
  done
  echo "unset multiplot"
} >"$work/plot.gp"
gnuplot "$work/plot.gp"

# 5. The document.
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
kernel_commit=$(git -C "$root" log -1 --format=%h -- runtime/kernels/include/nova/kernels/fused_mfma_kernels.hpp 2>/dev/null || echo unknown)
speed_name=${speed#"$root/"}
{
  cat <<EOF
# MI300X: PREDICTION, not a measurement: nothing here ran on an AMD GPU

Predicted times of NOVA's MFMA fused kernel (\`runtime/kernels/include/nova/kernels/fused_mfma_kernels.hpp\`)
on one AMD Instinct MI300X, for the 3x3 layers of ResNet-50 and VGG-16 (stride 1, pad 1, K = C,
batch 32, fp16), F(4,3) and F(2,3) (\`f4x3_standard\`, \`f2x3_standard\`), NHWC and NCHW. Every
MI300X number below is the output of a model fed with instruction counts of the gfx942 assembly and
AMD's published peaks; none was measured. The H200 columns are measurements (\`$speed_name\`, CUDA-graph
replay, batch 32): NOVA's fastest path of the layer and layout among AUTO, 3-pass and fused, and
cuDNN's fastest time in those rows. Only the fused MFMA kernel is predicted: on MI300X NOVA would also
have its 3-pass path (hipBLAS) and the layout conversions, which this does not model.

This describes MFMA kernel v2 (M in registers through every chunk, one output fold after the chunk
loop; the kernel header as of commit $kernel_commit), the only structure the counter accepts.

Written by \`tools/amd/predict_mi300x.sh\` at commit $commit, from the assembly of $compiler_version
(\`tools/check_kernel_compile.sh hip-gfx942\`). Files: \`mi300x_prediction.csv\` (every unit's time,
per layer, layout and transform), \`mi300x_prediction.png\` (the preferred transform's prediction
beside the H200 measurements).

![MI300X predicted beside H200 measured](mi300x_prediction.png)

## MI300X, predicted (µs, the limiting unit in brackets) beside H200, measured

EOF
  sed -n '1,/^$/p' "$work/table.md"
  cat <<'EOF'
"model prefers": the transform with the lower prediction. Bounds: `issue` (one block's instruction
stream, its phases one after another), `vector` (VALU), `matrix`, `LDS`, `L1`, `scalar`, `HBM`
(below). "HBM floor": x read once, y written once and U read once at 5.3 TB/s, the time no kernel
beats.

Each transform's launch on MI300X (tile groups of 16 tiles and channels a chunk from
`fused_mfma_launch`; blocks of 256 threads, 4 waves; on the busiest compute unit: its blocks, those
resident at once, and the rounds one resident slot runs) and every unit's predicted time (µs):

EOF
  sed -n '/^| layer | layout | transform |/,$p' "$work/table.md"
  cat <<'EOF'

## The model

1. **Counts from the assembly** (`tools/amd/gfx942_asm.cpp`, `nova-gfx942-count FILE.s` prints them per
   basic block and loop). Each fp16 fused MFMA kernel is cut into basic blocks; its loops are the
   cycles of the branch graph, headed where LLVM's loop comments say. The structure is checked and the
   run stops on anything else: one chunk loop at depth 1 holding one input-transform loop (LDS stores
   and global loads, no v_mfma) and one step loop (a channel step: n^2 x tile groups v_mfma an
   iteration, the only v_mfma of the kernel); no fp32 adds or FMAs in the chunk loop's own blocks or
   the step loop (M stays in the accumulators through every chunk), and more of them after the chunk
   loop than the bias adds (the one output fold); beside it only the tile-origin loops and the
   epilogue's per-channel store loops. Instructions are counted by class: v_mfma; other VALU (v_*);
   SALU (s_*, with s_load); LDS reads and writes with bytes a lane from the mnemonic (b32 4, b64 8,
   b128 16, read2/write2 and their st64 forms twice the element); global loads and stores with bytes;
   s_waitcnt, s_nop, s_barrier and branches are counted apart: no unit's time, but an issue slot each.
   Each part of the kernel is a path through its blocks: the step loop's and the chunk loop's own
   blocks the costliest path (a wave runs both sides of every exec-masked branch whose lanes differ);
   an input-transform iteration of interior tiles the cheapest path that loads each of the n^2 patch
   elements once (one channel, 2 bytes a lane), of border tiles the costliest that loads each at most
   twice (a wave with lanes on both of walk_patch's paths runs both); the code outside the loops, the
   output fold with it, the cheapest path that stores every output once (4 channels of each of the tile
   groups' m^2 pixels), with the tile-origin loops run once and each store loop 4 times.
2. **Trip counts from the kernel's own launch** (`tools/amd/mi300x_model.cpp` includes the kernel
   header for the host through `tests/support/kernel_emulation.hpp` and calls `make_tile_grid`,
   `fused_mfma_launch`, `fused_mfma_grid` and `fused_mfma_shared_bytes` with MI300X's 64 KB LDS and 304
   compute units): tile groups, channel chunk, grid. For every block and chunk, each of the 4 waves
   runs the input-transform loop once per 256 items it has a lane in (an item is one channel of one
   tile, chunk channels x the block's 16 or 32 tiles of them; an iteration counted as border where any
   of its lanes' tiles leaves the image, found with the kernel's `walk_patch`), the chunk loop's blocks
   once, and the step loop once per channel step of the chunk; once a block, after the last chunk, the
   code outside the loops (the output fold, bias, ReLU, stores).
3. **Units.** Resident blocks a compute unit: the fewer of the kernel's occupancy (LLVM's
   "; Occupancy", waves a SIMD; a block is one wave on each SIMD) and the LDS (64 KB / the launch's
   bytes). Blocks spread evenly; the busiest compute unit runs ceil(blocks / 304) of them. Its time
   on each unit, at the peak engine clock:
   - matrix: v_mfma x 16 clocks / 4 SIMDs; vector: VALU x 4 clocks / 4 SIMDs (v_mfma and VALU of
     different waves overlap, so they are separate units); scalar: SALU, one a clock a compute unit;
   - LDS: bytes (a lane's bytes x 64) / 128 bytes a clock; L1: global bytes loaded and stored / 64
     bytes a clock (the vector L1's peak; every U fragment and input element passes through it);
   - issue: one wave issues at most one instruction every 4 clocks (the scheduler visits each SIMD
     every fourth clock and takes at most one instruction a wave), v_mfma no faster than 16 clocks
     apart, and a block's input transform and products are kept apart by its barriers: a block lasts
     at least the sum over its chunks of its slowest wave's transform and its slowest wave's
     products; each of a compute unit's resident slots runs ceil(blocks on it / resident) blocks one
     after another (at the average block's time; never less than the slowest block);
   - HBM: x read once, y written once, the padded U read once, at 5.3 TB/s: the floor no kernel
     beats, reported in the CSV (`hbm_us`); the fused kernel's other traffic is not counted there.

   The prediction is the largest of these, named in the table. No L2 column: AMD publishes no L2
   bandwidth for MI300X that this could cite, and the share of the L1 traffic (U re-read by every
   block of a grid row, x re-read by every 64-channel slice of K) that the L1 catches is unknown
   here; the L1 column bounds those requests from the other side.

## MI300X numbers and their sources

EOF
  sed -n '/^| MI300X | value |/,$p' "$work/counts.md"
  cat <<'EOF'

- 304 compute units of 4 SIMDs, 2100 MHz peak engine clock, 64 KB LDS, 1307.4 TFLOP/s dense fp16 and
  bf16 matrix, 163.4 TFLOP/s fp32 vector, 5.3 TB/s HBM3: AMD Instinct MI300X data sheet
  (amd.com, "AMD Instinct MI300X Accelerator" data sheet) and the AMD CDNA 3 architecture white
  paper (amd.com, "AMD CDNA 3 Architecture", white paper); the compute unit count, 64 KiB LDS and
  wave64 also in ROCm's GPU specifications table (rocm.docs.amd.com, "AMD GPU specifications").
  These peaks were not re-read from the PDFs in the session that wrote this.
- LDS 128 bytes a clock a compute unit (32 banks of 4 bytes) and vector L1 64 bytes a clock a compute
  unit: the CDNA 3 white paper for the LDS, and the peaks of AMD's ROCm Compute Profiler for gfx942
  (ROCm/omniperf, `src/omniperf_soc/analysis_configs/gfx942/0200_system-speed-of-light.yaml`: LDS
  peak `sclk x CUs x 0.128` GB/s, vector L1D peak `sclk/1000 x 64 x CUs` GB/s).
- Issue: ROCm Compute Profiler, "Pipeline descriptions" (ROCm/rocprofiler-compute,
  `docs/conceptual/pipeline-descriptions.rst`): each clock the scheduler considers one SIMD, round
  robin, and issues at most one instruction per wave and one per category (VALU, VMEM, SALU/SMEM,
  LDS, branch); v_mfma issue through the VALU and other VALU work may run in their shadow.
- Derived, a SIMD: 1307.4e12 / (304 x 4 x 2.1e9) = 512 flop a clock, so a v_mfma_f32_16x16x16 (2 x
  16^3 = 8192 flop) takes 16 clocks; 163.4e12 / (304 x 4 x 2.1e9) = 64 flop a clock = 16 lanes x 2
  (an FMA) x 2 (packed fp32), so a wave64 VALU instruction takes 64 / 16 = 4 clocks.

## Weak points

- **Nothing is calibrated.** Every rate is a peak; no MI300X run checks any of it. A real kernel
  reaches a fraction of each peak, so read every prediction as "no faster than".
- **The issue bound decides most rows, and it is the most approximate**: 4 clocks an instruction a
  wave and 16 a v_mfma, with no memory latency (a block alone on a compute unit waits for every
  global load of its transform and for the U fragments each channel step reads from global memory:
  the small-image layers, whose grids leave most of the 304 compute units with one block or none,
  are likely slower than predicted), no s_nop or s_waitcnt stall, and no credit for one wave's
  VALU work overlapping its own v_mfma.
- **Paths are chosen, not traced**: interior iterations take the cheapest path that loads every
  patch element once, border ones the costliest that loads each at most twice; the code outside the
  loops the cheapest that stores every output (it skips the tile-origin loops that only wave 0
  runs).
- **Every VALU instruction is 4 clocks**: 64-bit integer ops (`v_mad_u64_u32`, `v_lshl_add_u64`),
  conversions and transcendental ones run slower on CDNA 3; the vector column is low by their
  excess.
- **Even spread over compute units**: blocks are assumed to be dealt out evenly with an average
  block each; XCD partitioning (8 dies of 38 compute units, each with its own L2) is ignored. (The
  4 waves of a block do share its work evenly: a chunk's transform items, 16-channel steps x
  16-tile groups, are a whole number of its 256 threads, and each wave multiplies its own 16 output
  channels.)
- **Bytes are requested bytes**: lanes x bytes a lane, no coalescing loss (NCHW's 2-byte loads of
  tiles m pixels apart touch more cache lines than they use) and no LDS bank conflicts.
- **The matrix peak**: the ROCm Compute Profiler's gfx942 configuration takes 4096 fp16 matrix flop
  a clock a compute unit, twice what the data sheet's dense 1307.4 TFLOP/s gives (2048); were
  v_mfma_f32_16x16x16_f16 8 clocks rather than 16, only the matrix column would halve, and it bounds
  no row here.

## Counted paths of each fp16 kernel (a wave, one execution of each part)

EOF
  sed -n '1,/^$/p' "$work/counts.md"
  cat <<EOF
## Reproduce

\`\`\`sh
tools/amd/predict_mi300x.sh            # compiles for gfx942 (clang-19, rocm-device-libs), counts, models, writes these files
build-pred/tools/amd/nova-gfx942-count --summary f4x3_standard.s   # the per-block counts behind one file's rows
\`\`\`
EOF
} >"$out/mi300x_prediction.md"
echo "predict_mi300x: wrote $out/mi300x_prediction.md, .csv, .png (PREDICTION; H200 numbers from $speed_name)"
