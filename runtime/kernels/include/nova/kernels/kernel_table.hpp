// The GPU kernels of one transform, as a table every GPU path shares: nova-codegen emits them under
// the names kernel_symbol gives, a build's generated/<name>_kernels.hip fills a GpuTransformEntry with
// their addresses, and a transform loaded at run time (nova_transform_load) fills one with the
// handles of the same kernels compiled by NVRTC. Plain C++: the code generator includes it too, and
// the kernels (which need the enums and output_run_length) under NVRTC, which has no <string>.
#pragma once

#include "nova/kernels/hd.hpp"

#ifndef __CUDACC_RTC__
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#endif

namespace nova::kernels {

enum class Layout { nchw, nhwc };
enum class Storage { f16, f32, bf16 };  // the element type of x, V, U and y
constexpr int storage_bytes(Storage s) { return s == Storage::f32 ? 4 : 2; }

// What a kernel does: the 3-pass stages (input_tile_pairs: the NCHW input transform with two tiles a
// thread; output: from an fp32 M; output_m16: from an M stored in the 16-bit storage type, fp16 and
// bf16 only; output_tile_pairs: the NCHW output transform from a 16-bit M with two tiles a thread),
// and the fused convolution's mma.sync variants (one K block a warp, two, chunked channels), wgmma
// variants (16 tiles a group, 8) and MFMA variants (two tile groups a block, one).
enum class KernelKind {
  filter,
  input,
  input_tile_pairs,
  output,
  output_m16,
  output_tile_pairs,
  fused_mma,
  fused_wgmma,
  fused_mfma
};
// Which compiled module holds a kernel: a transform loaded at run time compiles each at first use.
enum class KernelGroup { three_pass, fused };

// The tiles the fused kernels take, the only ones the code generator emits them for: n up to
// kFusedMaxTileSide (the output accumulators' registers), n even (a lane of the mma.sync kernel reads
// the fragments of two positions at once), m a power of two (the wgmma kernel's NCHW stores give each of
// its 256 producer threads whole tile rows of a group of 16 or 8 tiles), and m^2 < 3 n (a group's outputs
// fit a warp's U buffer for the mma.sync kernel's restaged epilogue). F(2,3), F(4,3) and F(2,5) are
// taken; F(3,3) (a 5 x 5 patch), F(3,2) and F(2,4), say, run the 3-pass pipeline.
inline constexpr int kFusedMaxTileSide = 6;
NOVA_HD constexpr bool fused_tile_supported(int m, int n) {
  return m >= 1 && n <= kFusedMaxTileSide && n % 2 == 0 && (m & (m - 1)) == 0 && m * m < 3 * n;
}

inline constexpr int kFusedMmaVariants = 3;
inline constexpr int kFusedWgmmaVariants = 2;
inline constexpr int kFusedMfmaVariants = 2;

// What each fused variant is, the one list the code generator emits from and the launchers pick
// from: mma.sync variant v runs k_blocks blocks of 8 output channels a warp (or chunks of the
// channels), wgmma variant v takes kFusedWgmmaTiles[v] tiles a group, MFMA variant v
// kFusedMfmaTileGroups[v] groups of 16 tiles a block.
struct FusedMmaVariant {
  int k_blocks;
  bool chunked;
};
inline constexpr FusedMmaVariant kFusedMmaVariant[kFusedMmaVariants] = {{1, false}, {2, false}, {1, true}};
inline constexpr int kFusedWgmmaTiles[kFusedWgmmaVariants] = {16, 8};
inline constexpr int kFusedMfmaTileGroups[kFusedMfmaVariants] = {2, 1};

// The wgmma kernels that have the input transform on the tensor cores (fused_wg_tc_input picks it per
// launch): F(4,3) (6 x 6 tiles), NHWC fp16 and bf16, groups of 16 tiles. These take FusedConvArgs
// NOVA_GRID_CONSTANT, the other wgmma kernels as a plain parameter: each form measured the faster on its
// kernels (docs/performance.md, "Fused v5.24").
inline constexpr int kWgTcSide = 6;
constexpr bool fused_wg_tc_kernel(int n, Layout layout, int tiles, Storage storage) {
  return n == kWgTcSide && layout == Layout::nhwc && tiles == 16 && storage != Storage::f32;
}

#ifndef __CUDACC_RTC__
// How many tables of the 16-bit storage type sum exactly to B^T (x) B^T (row-major n x n B^T, the JSON's
// exact matrix in double), which the wgmma kernel's products on the tensor cores need to round V as the FP
// transform does (fused_wg_tc_input): 1 where every product of two entries is a value of the type; 2 where
// each such product v is hi + lo, hi v rounded to the type (to nearest, ties to even, as the kernel's
// fragments round it) and lo = v - hi a value of the type too; 0 where more would be needed (or fp32).
// A value of the type: at most 11 significant bits, a multiple of 2^-24 and at most 65504 (fp16), or 8
// significant bits (bf16). With two, `second_rows` has bit r where the second table is not zero in the
// columns of patch row r (B^T (x) B^T's columns 6 r + s: products of B^T's column r), which the kernel's
// products leave out elsewhere. A transform's registry entry holds the count for each type (the code
// generator's, or the loader's for a transform loaded at run time).
struct KroneckerTables {
  int terms = 0;
  unsigned second_rows = 0;
};
inline KroneckerTables fused_wg_kronecker_tables(int n, const double* BT, Storage storage) {
  constexpr int kMaxSide = 16;
  if (n > kMaxSide || storage == Storage::f32) return {};
  const bool fp16 = storage == Storage::f16;
  const int bits = fp16 ? 11 : 8;
  const auto rounded = [&](double v) {  // v to the nearest value of the type's grid (fp16: 2^-24 at the least)
    if (v == 0.0) return 0.0;
    int exponent = 0;
    std::frexp(v, &exponent);  // |v| in [2^(exponent-1), 2^exponent)
    const int quantum = fp16 ? std::max(exponent - bits, -24) : exponent - bits;
    return std::ldexp(std::nearbyint(std::ldexp(v, -quantum)), quantum);
  };
  const auto representable = [&](double v) { return rounded(v) == v && (!fp16 || std::fabs(v) <= 65504.0); };
  double distinct[kMaxSide * kMaxSide];
  int count = 0;
  for (int e = 0; e < n * n; ++e) {
    const double v = std::fabs(BT[e]);
    if (v != 0.0 && std::find(distinct, distinct + count, v) == distinct + count) distinct[count++] = v;
  }
  KroneckerTables tables{1, 0};
  for (int r = 0; r < n; ++r)
    for (int i = 0; i < n; ++i)
      for (int b = 0; b < count; ++b) {
        const double v = std::fabs(BT[i * n + r]) * distinct[b];
        if (representable(v)) continue;
        if (!representable(rounded(v)) || !representable(v - rounded(v))) return {};
        tables.terms = 2;
        tables.second_rows |= 1u << r;
      }
  return tables;
}
#endif

constexpr int fused_mma_variant(int k_blocks, bool chunked) {
  for (int v = 0; v < kFusedMmaVariants; ++v)
    if (kFusedMmaVariant[v].k_blocks == k_blocks && kFusedMmaVariant[v].chunked == chunked) return v;
  return -1;
}
constexpr int fused_wgmma_variant(int tiles) {
  for (int v = 0; v < kFusedWgmmaVariants; ++v)
    if (kFusedWgmmaTiles[v] == tiles) return v;
  return -1;
}
constexpr int fused_mfma_variant(int tile_groups) {
  for (int v = 0; v < kFusedMfmaVariants; ++v)
    if (kFusedMfmaTileGroups[v] == tile_groups) return v;
  return -1;
}
// The MFMA kernel's tile groups for n x n input tiles: a lane holds 4 n^2 sums of each group (M)
// through every chunk of channels, beside the input transform's patch; two groups only where they
// take at most 128 registers (n <= 4: F(2,3)). F(4,3) with two groups would need 288 of the 256
// registers two waves a SIMD have, so its two-group kernels are not emitted.
constexpr int fused_mfma_max_tile_groups(int n) { return 2 * 4 * n * n <= 128 ? 2 : 1; }

struct KernelId {
  KernelKind kind;
  Layout layout = Layout::nchw;  // unused by the filter transform
  Storage storage = Storage::f16;
  int variant = 0;  // fused kernels only
};

// Table positions: filter [storage], input and output [layout][storage], input_tile_pairs [storage]
// (NCHW), output_m16 [layout][storage f16 / bf16], output_tile_pairs [storage f16 / bf16] (NCHW), the
// fused kernels [storage f16 / bf16][layout][variant] of each family (mma.sync, wgmma, MFMA).
inline constexpr int kFilterKernels = 3, kTileKernels = 6, kTilePairKernels = 3, kNarrowOutputKernels = 2 * 2,
                     kOutputTilePairKernels = 2, kFusedMmaKernels = 2 * 2 * kFusedMmaVariants,
                     kFusedWgmmaKernels = 2 * 2 * kFusedWgmmaVariants, kFusedMfmaKernels = 2 * 2 * kFusedMfmaVariants;
inline constexpr int kThreePassKernels =
    kFilterKernels + 2 * kTileKernels + kTilePairKernels + kNarrowOutputKernels + kOutputTilePairKernels;
inline constexpr int kKernelsPerTransform = kThreePassKernels + kFusedMmaKernels + kFusedWgmmaKernels + kFusedMfmaKernels;

// The fused families in table order: their kinds, variants a (storage, layout) pair, and first index.
inline constexpr KernelKind kFusedKinds[] = {KernelKind::fused_mma, KernelKind::fused_wgmma, KernelKind::fused_mfma};
constexpr int fused_variants(KernelKind kind) {
  return kind == KernelKind::fused_mma ? kFusedMmaVariants : kind == KernelKind::fused_wgmma ? kFusedWgmmaVariants : kFusedMfmaVariants;
}
constexpr int fused_family_start(KernelKind kind) {
  int start = kThreePassKernels;
  for (const KernelKind k : kFusedKinds) {
    if (k == kind) break;
    start += 2 * 2 * fused_variants(k);
  }
  return start;
}

constexpr int kernel_index(const KernelId& id) {
  const int storage = static_cast<int>(id.storage), layout = static_cast<int>(id.layout);
  const int narrow = id.storage == Storage::bf16 ? 1 : 0;  // of the kernels with no fp32 (f16 0, bf16 1)
  switch (id.kind) {
    case KernelKind::filter: return storage;
    case KernelKind::input: return kFilterKernels + layout * 3 + storage;
    case KernelKind::output: return kFilterKernels + kTileKernels + layout * 3 + storage;
    case KernelKind::input_tile_pairs: return kFilterKernels + 2 * kTileKernels + storage;
    case KernelKind::output_m16: return kFilterKernels + 2 * kTileKernels + kTilePairKernels + layout * 2 + narrow;
    case KernelKind::output_tile_pairs: return kThreePassKernels - kOutputTilePairKernels + narrow;
    case KernelKind::fused_mma:
    case KernelKind::fused_wgmma:
    case KernelKind::fused_mfma:
      return fused_family_start(id.kind) + (narrow * 2 + layout) * fused_variants(id.kind) + id.variant;
  }
  return -1;
}

constexpr KernelId kernel_id(int index) {
  if (index < kFilterKernels) return {KernelKind::filter, Layout::nchw, static_cast<Storage>(index), 0};
  if (index < kFilterKernels + 2 * kTileKernels) {
    const int tile = index - kFilterKernels;
    const KernelKind kind = tile < kTileKernels ? KernelKind::input : KernelKind::output;
    return {kind, static_cast<Layout>(tile % kTileKernels / 3), static_cast<Storage>(tile % 3), 0};
  }
  if (index < kFilterKernels + 2 * kTileKernels + kTilePairKernels)
    return {KernelKind::input_tile_pairs, Layout::nchw, static_cast<Storage>(index - kFilterKernels - 2 * kTileKernels), 0};
  if (index < kThreePassKernels - kOutputTilePairKernels) {
    const int narrow = index - kFilterKernels - 2 * kTileKernels - kTilePairKernels;
    return {KernelKind::output_m16, static_cast<Layout>(narrow / 2), narrow % 2 ? Storage::bf16 : Storage::f16, 0};
  }
  if (index < kThreePassKernels) {
    const int narrow = index - (kThreePassKernels - kOutputTilePairKernels);
    return {KernelKind::output_tile_pairs, Layout::nchw, narrow ? Storage::bf16 : Storage::f16, 0};
  }
  KernelKind kind = KernelKind::fused_mma;
  for (const KernelKind k : kFusedKinds)
    if (index >= fused_family_start(k)) kind = k;
  index -= fused_family_start(kind);
  const int variants = fused_variants(kind), pair = index / variants;  // pair: fused_storage * 2 + layout
  return {kind, static_cast<Layout>(pair % 2), pair / 2 ? Storage::bf16 : Storage::f16, index % variants};
}

constexpr bool kernel_table_round_trips() {
  for (int i = 0; i < kKernelsPerTransform; ++i)
    if (kernel_index(kernel_id(i)) != i) return false;
  return true;
}
static_assert(kernel_table_round_trips(), "kernel_id must invert kernel_index");

constexpr KernelGroup kernel_group(KernelKind kind) {
  return kind == KernelKind::fused_mma || kind == KernelKind::fused_wgmma || kind == KernelKind::fused_mfma
             ? KernelGroup::fused
             : KernelGroup::three_pass;
}

// Whether kernels of this kind launch as programmatic dependents (transform_launch.hpp
// launch_dependent_kernel): the 3-pass input and output transforms, which follow another kernel of
// the forward. The filter transform runs once a weight, the fused kernels alone.
constexpr bool launches_as_dependent(KernelKind kind) {
  return kernel_group(kind) == KernelGroup::three_pass && kind != KernelKind::filter;
}

// Whether the NHWC input transform's blocks of channel pairs are half the usual size (128 threads,
// launch bounds for three blocks an SM): two 16-bit channels of an 8 x 8 patch, whose thread holds one
// channel in storage precision while it transforms the other (transform_kernels.hpp pair_block_tiles;
// the code generator emits their launch bounds).
NOVA_HD constexpr bool input_pairs_in_small_blocks(int n, int element_bytes) { return n == 8 && element_bytes == 2; }

// Whether the staged NCHW output kernel of m x m tiles of `element_bytes` elements
// (transform_kernels.hpp nchw_output_staged) names two blocks an SM in its launch bound: the 16-bit
// 6 x 6 tiles', which took 92-109 registers under the plain bound, except f6x3_fp16's bf16 kernel: ptxas
// held it to 80 for a third block and spilled 4 B; with two blocks named it takes 95 and spills nothing.
// The 4 x 4 tiles' kernels fit three blocks (48-64 registers), the 8 x 8 tiles' take 128-150 and one.
NOVA_HD constexpr bool staged_output_in_two_blocks(int m, int element_bytes) { return m == 6 && element_bytes == 2; }

// Whether the NCHW input transform on n x n tiles has a tile-pair kernel: up to 8 x 8, the largest
// measured (F(6,3) VGG-16 256@56 batch 32: input stage 94.0 -> 75.3 µs).
constexpr bool nchw_input_has_tile_pairs(int n) { return n <= 8; }

// Whether NCHW images `width` wide, whose rows hold `tiles_w` tiles of n x n, take the input transform
// in tile pairs (given aligned buffers): where the kernel exists and every row holds an even number of
// tiles and of elements, so that a thread's two tiles share a row and its aligned element pairs never
// cross one. Rows of an odd number of tiles (the last pair's second tile missing) measured 24-67 %
// slower in pairs than a tile a thread (docs/performance.md, "NCHW input in tile pairs: a kernel of
// its own"). The launcher and the cost model ask this.
constexpr bool nchw_rows_in_tile_pairs(int n, long long tiles_w, long long width) {
  return nchw_input_has_tile_pairs(n) && tiles_w % 2 == 0 && width % 2 == 0;
}

// The elements of an NCHW tile row the output transform stores at once: the largest power of two that
// divides m and takes at most 16 bytes (m = 6: pairs, whose output stage measured 255.4 -> 139.9 µs
// at VGG-16 128@112 batch 32, F(6,3); docs/performance.md, "NCHW input in tile pairs: a kernel of its
// own"), where the output width is a multiple of it.
NOVA_HD constexpr int output_run_length(int m, int element_bytes) {
  int run = 1;
  while (m % (2 * run) == 0 && 2 * run * element_bytes <= 16) run *= 2;
  return run;
}

// Whether the NCHW output transform on tiles m wide has a tile-pair kernel (output_tile_pairs): where
// a row of both tiles, 2m 16-bit elements, is one aligned store (m = 2, 4: F(2,3), F(4,3)). A wider
// pair's row goes in several stores, each of which leaves every other sector half written (F(6,3)'s
// measured 24-44 % slower than a tile a thread: docs/performance.md, "F(6,3) output transform in
// pairs").
NOVA_HD constexpr bool nchw_output_has_tile_pairs(int m) { return output_run_length(2 * m, 2) == 2 * m; }

// Whether a transform F(m, r) has kernel `id` (given it has the kernels of id's group): every kernel
// but the MFMA variants with more tile groups than fused_mfma_max_tile_groups(n), and the NCHW tile
// pairs beyond nchw_input_has_tile_pairs and nchw_output_has_tile_pairs.
constexpr bool kernel_emitted(const KernelId& id, int m, int r) {
  const int n = m + r - 1;
  if (id.kind == KernelKind::input_tile_pairs) return nchw_input_has_tile_pairs(n);
  if (id.kind == KernelKind::output_tile_pairs) return nchw_output_has_tile_pairs(m);
  return id.kind != KernelKind::fused_mfma || kFusedMfmaTileGroups[id.variant] <= fused_mfma_max_tile_groups(n);
}

constexpr const char* storage_suffix(Storage s) { return s == Storage::f16 ? "f16" : s == Storage::f32 ? "f32" : "bf16"; }
constexpr const char* layout_name(Layout l) { return l == Layout::nchw ? "nchw" : "nhwc"; }

#ifndef __CUDACC_RTC__
// The kernel's extern "C" name, the one name every path uses: nova_<transform>_input_nhwc_f16,
// nova_<transform>_fused_mma_nchw_bf16_v2, ...
inline std::string kernel_symbol(std::string_view transform, const KernelId& id) {
  std::string s = "nova_" + std::string(transform) + "_";
  switch (id.kind) {
    case KernelKind::filter: return s + "filter_" + storage_suffix(id.storage);
    case KernelKind::input: s += "input_"; break;
    case KernelKind::input_tile_pairs: s += "input_tile_pairs_"; break;
    case KernelKind::output: s += "output_"; break;
    case KernelKind::output_m16: s += "output_m16_"; break;
    case KernelKind::output_tile_pairs: s += "output_tile_pairs_"; break;
    case KernelKind::fused_mma: s += "fused_mma_"; break;
    case KernelKind::fused_wgmma: s += "fused_wgmma_"; break;
    case KernelKind::fused_mfma: s += "fused_mfma_"; break;
  }
  s += std::string(layout_name(id.layout)) + "_" + storage_suffix(id.storage);
  if (kernel_group(id.kind) == KernelGroup::fused) s += "_v" + std::to_string(id.variant);
  return s;
}
#endif

}  // namespace nova::kernels
