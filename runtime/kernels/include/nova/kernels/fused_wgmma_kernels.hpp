// The fused Winograd convolution's second generation, for Hopper (sm_90a): the same mathematics as
// fused_kernels.hpp (V = B^T d B into shared memory, M_xi = U_xi V_xi over the channels, y = A^T M A
// folded a domain row at a time, bias, ReLU), reorganised around wgmma and a warp-specialised block
// of three warpgroups:
//   - two producer warpgroups transform the input of one tile group (kTiles = 16 or 8 tiles, on the
//     tensor-core path fewer in fours where that evens the grid's waves, fused_wg_group_size; every
//     channel) after another into a ring of two V slots, each in wgmma's B layout (wgmma.hpp), and
//     hand each slot over through a block barrier (mbarrier); F(4,3) on NHWC fp16 and bf16 images of 64
//     channels on the tensor cores (fused_wg_tc_input: the patches by the copy engine, a pair of neighbour
//     tiles a copy where it can, V = (B^T (x) B^T) D as one product), elsewhere in fp32 on the FP pipes;
//   - one consumer warpgroup multiplies: for each block of 64 output channels and each domain row
//     i, the n products U_(i,j) V_(i,j) (wgmma m64 x kTiles x 16, both operands read by the tensor
//     cores from shared memory, no ldmatrix) of every channel step, U streamed by the copy engine
//     (cp.async.bulk) through a ring of stages (as many as the shared memory holds, 3 to 8, fewer
//     where blocks take many tile groups: fused_wg_launch_u_stages), each the n blocks of one (row,
//     channel step), contiguous in the filter (fused_wg_filter_index), each refilled as the one after
//     it starts; then folds the row into the outputs as fused_accumulate does, while the next row's
//     first products run; adds bias and ReLU and
//     stages the outputs in shared memory, which the producers store between two tile groups (NHWC:
//     tile rows by the copy engine where K = 64, else 16-byte channel runs; NCHW: plane rows);
//   - the grid is persistent (one block an SM), so the producers transform the next tile group
//     while the consumer multiplies this one.
// Compared with the mma.sync kernel this moves 64 x 16 + 16 x kTiles operand elements through
// shared memory per 64 x kTiles x 16 product (the mma.sync loop moves 16 x 16 + 16 x 8 per
// 16 x 8 x 16), and the input transform overlaps the products instead of preceding them.
// Where it runs: sm_90a builds (NOVA_FUSED_WGMMA), and the CPU emulation; elsewhere the kernel is
// a trap and never launched (the runtime checks the device and the build: FusedDevice::wgmma).
// Where the runtime uses it, and its measured speed: docs/performance.md, "Fused v5".
#pragma once

#include "nova/kernels/fused_kernels.hpp"
#include "nova/kernels/wgmma.hpp"

#if NOVA_HOST_LAUNCHERS && defined(__CUDACC__) && !defined(__HIP__)
#include <cudaTypedefs.h>  // cuTensorMapEncodeTiled's type, reached through the runtime's driver entry points
#endif

namespace nova::kernels {

inline constexpr int kWgThreads = 384;          // three warpgroups
inline constexpr int kWgProducerThreads = 256;  // the first two
inline constexpr int kWgConsumerThreads = 128;  // the third
inline constexpr int kWgVSlots = 2;
inline constexpr int kWgUStages = 3;     // the fewest U stages: the one multiplied, two fetched ahead
inline constexpr int kWgMaxUStages = 8;  // the most (the copy engine's latency is hidden well before)
inline constexpr int kWgBarriers = 2 * kWgVSlots + kWgMaxUStages + 2;  // V full, V empty, U full, staging full, free
inline constexpr int kWgMaxTiles = 16;
// Before the operands: the barriers (16 bytes each), then the origins of the tiles of the group in
// each V slot, padded to a 128-byte boundary, on which every V slot, U stage and the staging then start
// (their sizes are multiples of 128 bytes; docs/performance.md, "Fused v5.13").
inline constexpr int kWgHeaderBytes =
    (kWgBarriers * 16 + kWgVSlots * kWgMaxTiles * static_cast<int>(sizeof(TileOrigin)) + 127) / 128 * 128;

// The input transform on the tensor cores (docs/performance.md, "Fused v5.23"): V of a tile (its n^2 = 36
// positions, padded to wgmma's 64 rows) = Bk D, Bk = B^T (x) B^T in registers as wgmma's A, its patch index
// k = 8 r + s (s = 6, 7: zero columns, so that a k-step of 16 is two patch rows), D the tile's 6 x 6 patch as
// B: 36 rows of 128 bytes (the pixel's 64 channels) that a tensor copy writes, swizzled, zeros outside
// the image. Each producer warpgroup takes its tiles kWgTcBatch a slot, into two slots in turn (the one
// after next copied while this one is multiplied); the products accumulate Bk's exact terms (its entries
// exact in the storage type, fp16 or bf16, times x) in fp32 and round once into the V slot, whose (channel
// step, position) blocks are kWgTcSkew elements apart more there (a warp's stores of 8 positions then meet
// 32 banks).
inline constexpr int kWgTcChannels = 64;    // one 128-byte row a pixel
inline constexpr int kWgTcBatch = 2;        // tiles a slot
inline constexpr int kWgTcTileBytes = 40 * 128;  // a patch's 36 rows and 4 zero ones (a k-step's reach), 1024-aligned
inline constexpr int kWgTcSlotBytes = kWgTcBatch * kWgTcTileBytes;
// After the rest: the copies' 4 barriers (a warpgroup's two slots), then the 4 slots on a 1024-byte
// boundary (the swizzle's period).
inline constexpr int kWgTcBytes = 64 + 1024 + 4 * kWgTcSlotBytes;
inline constexpr int kWgTcSkew = 8;
// Where a tile row has an even number of tiles, the two tiles of a batch are neighbours (4 pixels apart) and one copy
// brings both patches: a box of kWgTcSide rows of kWgTcPairWidth pixels, tile b's patch rows then kWgTcPairWidth rows
// of 128 bytes apart from row 4 b (what a k-step reads past a patch row is the next pixels or the slot's zero rows).
// FusedConvArgs::tc_input says which: 1, a copy a tile; 2, a copy a pair. The copy engine takes its copies one after
// another, each at a cost of its own besides its bytes, so one copy of 60 rows is cheaper than two of 36
// (docs/performance.md, "Fused v5.34").
inline constexpr int kWgTcPairWidth = 2 * kWgTcSide - 2;
// The tiles of a patch copy for grid g: 2 where a tile row has an even number of tiles (a batch's two tiles, an even
// tile and the next, are then neighbours), else 1.
NOVA_HD constexpr int fused_wg_tc_copy_tiles(const TileGrid& g) { return g.tiles_w % 2 == 0 ? 2 : 1; }

// Whether a wgmma launch transforms its input on the tensor cores: F(4,3) NHWC fp16 or bf16 with C = 64, one
// block of outputs (K <= 64: the staging in the V slot, so that the patch slots fit), groups of 16, where
// B^T (x) B^T is one table of the storage type, or two where every block of the grid (`grid_tiles` tiles on
// `multiprocessors` SMs) takes at least kWgTcTwoTableGroups groups (kronecker_terms, the transform's registry
// entry's: fused_wg_kronecker_tables). Two tables are up to three more products a tile (the shipped sets' two):
// where blocks take many groups they beat the FP transform of an accurate set (f4x3_fp16_dyadic, VGG-16 64@224
// NHWC: -12 % at batch 32, -7 % at 8), at three a block they tie, with one or two they lose (+7 % at batch 1;
// docs/performance.md, "Fused v5.33").
inline constexpr int kWgTcTwoTableGroups = 2;
constexpr bool fused_wg_tc_input(int n, int C, int K, Layout layout, int tiles, Storage storage, int kronecker_terms,
                                 long long grid_tiles, int multiprocessors) {
  const long long groups = (grid_tiles + tiles - 1) / tiles;
  return fused_wg_tc_kernel(n, layout, tiles, storage) && C == kWgTcChannels && K <= 64 &&
         (kronecker_terms == 1 || (kronecker_terms == 2 && groups >= static_cast<long long>(kWgTcTwoTableGroups) * multiprocessors));
}
// The kernels that have the tensor-core path (the others never take it).
template <class Transform, typename T, Layout layout, int kTiles>
inline constexpr bool kWgTcKernel = fused_wg_tc_kernel(Transform::n, layout, kTiles, storage_of<T>());
// The tables of Bk the path's products take for T, the generated transform's fused_wg_kronecker_tables for T: `terms`
// of them (one where there is none, the path then never launched), and with two the k-steps (two patch rows each)
// whose second table is not zero (the rest take one product).
template <class Transform, typename T>
struct WgTcTables {
  static constexpr bool f16 = storage_of<T>() == Storage::f16;
  static constexpr int terms = (f16 ? Transform::kronecker_terms_fp16 : Transform::kronecker_terms_bf16) > 1 ? 2 : 1;
  static constexpr unsigned second_rows = f16 ? Transform::kronecker_second_rows_fp16 : Transform::kronecker_second_rows_bf16;
};
// The tensor-core input transform (kWgTcChannels ... above; kWgTcSide in kernel_table.hpp) multiplies with Bk, B^T (x)
// B^T, as A fragments in registers: each producer thread's made at compile time, a table in global memory (48 bytes
// a thread and table of T), seen by both of nvcc's passes (the host pass registers the device variable). Made at run
// time from a table in shared memory, they cost the one- and two-group grids 3-6 % (docs/performance.md, "Fused
// v5.40").
// B^T (x) B^T in fp32 (table[xi * 36 + 6 r + s]): column 6 r + s the generated transform of the unit patch at (r, s).
struct WgTcTable {
  float e[kWgTcSide * kWgTcSide * kWgTcSide * kWgTcSide];
};
template <class Transform>
constexpr WgTcTable fused_wg_tc_table() {
  static_assert(Transform::n == kWgTcSide, "the tensor-core input path's tiles");
  constexpr int nn = kWgTcSide * kWgTcSide;
  WgTcTable table{};
  for (int k = 0; k < nn; ++k) {
    float unit[nn]{}, v[nn]{};
    unit[k] = 1.0f;
    Transform::input_2d(unit, v);
    for (int xi = 0; xi < nn; ++xi) table.e[xi * nn + k] = v[xi];
  }
  return table;
}
// Thread `thread`'s fragments of a producer warpgroup (mma.m16n8k16's A layout in each warp: rows 16 w + l / 4 (+ 8),
// k 2 (l % 4) (+ 1) (+ 8), for each of the three k-steps) as kTerms tables of T: the first each entry rounded to T,
// the second what that rounding left (exact where the transform's fused_wg_kronecker_tables count is 2).
template <int kTerms>
struct alignas(16) WgTcFragments {
  std::uint32_t a[kTerms][3][4];
};
template <typename T, int kTerms>
constexpr WgTcFragments<kTerms> fused_wg_tc_fragments(const float* table, int thread) {
  constexpr int n = kWgTcSide, nn = n * n;
  WgTcFragments<kTerms> f{};
  const int row = thread / 32 * 16 + thread % 32 / 4, col = thread % 4 * 2;
  for (int q = 0; q < 3; ++q)
    for (int i = 0; i < 4; ++i) {
      float e[2]{};
      for (int h = 0; h < 2; ++h) {
        const int xi = row + 8 * (i % 2), k = 16 * q + col + 8 * (i / 2) + h, r = k / 8, s = k % 8;
        e[h] = xi < nn && s < n ? table[xi * nn + r * n + s] : 0.0f;
      }
      for (int term = 0; term < kTerms; ++term) {
        const std::uint16_t lo = wg_storage_bits<T>(e[0]), hi = wg_storage_bits<T>(e[1]);
        f.a[term][q][i] = lo | std::uint32_t{hi} << 16;
        e[0] -= wg_storage_value<T>(lo);  // what the rounding left, for the next table
        e[1] -= wg_storage_value<T>(hi);
      }
    }
  return f;
}
// Every producer thread's fragments (a thread of each warpgroup: thread % 128).
template <class Transform, typename T>
struct WgTcFragmentTable {
  WgTcFragments<WgTcTables<Transform, T>::terms> thread[128];
};
template <class Transform, typename T>
constexpr WgTcFragmentTable<Transform, T> fused_wg_tc_fragment_table() {
  const WgTcTable table = fused_wg_tc_table<Transform>();
  WgTcFragmentTable<Transform, T> f{};
  for (int t = 0; t < 128; ++t) f.thread[t] = fused_wg_tc_fragments<T, WgTcTables<Transform, T>::terms>(table.e, t);
  return f;
}
template <class Transform, typename T>
__device__ constexpr WgTcFragmentTable<Transform, T> kWgTcFragments = fused_wg_tc_fragment_table<Transform, T>();
// The tensor map of x that the tensor-core path's copies read (a CUtensorMap; the emulation's
// WgEmulatedMap): every wgmma kernel's second parameter, NOVA_GRID_CONSTANT, apart from FusedConvArgs so
// that the kernels without the path keep their arguments a plain parameter (fused_wg_tc_kernel).
struct alignas(128) WgTensorMap {
  unsigned char bytes[128] = {};
};

// K as the consumer sees it: whole blocks of 64 output channels (wgmma's M).
NOVA_HD constexpr int fused_wg_padded_outputs(int K) { return (K + kWgRows - 1) / kWgRows * kWgRows; }

// Element (tile t, pixel p, channel kl of a block of 64) of the staged outputs of one tile group:
// NHWC as [tile][pixel][channel], each pixel's 64 channels one 128-byte run that the copy engine stores
// whole, tiles padded by 16 bytes (the 8 tiles of a consumer's stmatrix then meet 8 different groups of
// banks); NCHW as [channel][tile][pixel] (rows padded by 4 bytes).
template <Layout layout>
NOVA_HD constexpr int fused_wg_staging_offset(int t, int p, int kl, int m, int tiles) {
  return layout == Layout::nhwc ? t * (m * m * kWgRows + 8) + p * kWgRows + kl : kl * (tiles * m * m + 2) + t * m * m + p;
}

// Shared memory of one block, in 16-bit elements after the header: two V slots, `u_stages` U stages
// and the staged outputs of one block of 64 channels of a tile group (this layout's
// fused_wg_staging_offset range). With one block of outputs (K <= 64) the outputs of a tile group are
// staged in the group's own V slot where they fit: its products are done by then, and the producers
// store them before they refill it, so the staging's bytes go to the U ring (docs/performance.md,
// "Fused v5.15").
struct WgLayout {
  int steps;     // channel steps of 16
  int v_block;   // one (channel step, position) block: kTiles x 16, and kWgTcSkew on the tensor-core path
  int v_slot;    // steps x n^2 positions x v_block
  int u_stage;   // n blocks of 64 x 16
  int u_stages;  // of the ring
  int staging;
  bool staging_in_slot;
  bool tc_input;  // fused_wg_tc_input: the patch slots after everything else
  long long bytes;
};
// Where the layout puts the staging: as the launch's K decides (in the slot where K <= 64 and it fits),
// or in a buffer of its own whatever K (what fused_wg_tiles sizes tile groups by).
enum class WgStaging { by_outputs, own_buffer };
NOVA_HD constexpr WgLayout fused_wg_layout(int n, int m, int C, int K, int tiles, Layout layout, int u_stages,
                                           WgStaging staging = WgStaging::by_outputs, bool tc_input = false) {
  WgLayout l{};
  l.steps = fused_padded_channels(C) / kFusedChannelStep;
  l.tc_input = tc_input;
  l.v_block = tiles * kWgDepth + (tc_input ? kWgTcSkew : 0);
  l.v_slot = n * n * l.steps * l.v_block;
  l.u_stage = n * wg_operand_elements(kWgRows);
  l.u_stages = u_stages;
  l.staging = layout == Layout::nhwc ? tiles * (m * m * kWgRows + 8) : kWgRows * (tiles * m * m + 2);
  l.staging_in_slot = staging == WgStaging::by_outputs && K <= kWgRows && l.staging <= l.v_slot;
  l.bytes = kWgHeaderBytes + 2LL * (static_cast<long long>(kWgVSlots) * l.v_slot + static_cast<long long>(u_stages) * l.u_stage +
                                    (l.staging_in_slot ? 0 : l.staging)) +
            (tc_input ? kWgTcBytes : 0);
  return l;
}

// The tiles of a tile group for a shape: 16 where two V slots of every channel, the fewest U stages
// and a staging of its own fit the shared memory in either layout, else 8, else 0 (not this kernel);
// the staging counted whatever K, so that the tile groups depend on C alone. The tile must fit the
// registers (n <= kFusedMaxTileSide) and U and y their 32-bit offsets.
constexpr int fused_wg_tiles(int n, int m, int C, int K, long long shared_limit) {
  if (n > kFusedMaxTileSide || C < 1 || K < 1 || C > (1 << 20) || K > (1 << 20)) return 0;
  if (static_cast<long long>(n) * n * fused_wg_padded_outputs(K) * fused_padded_channels(C) > INT_MAX) return 0;
  for (int tiles = 16; tiles >= 8; tiles /= 2)
    if (fused_wg_layout(n, m, C, K, tiles, Layout::nhwc, kWgUStages, WgStaging::own_buffer).bytes <= shared_limit &&
        fused_wg_layout(n, m, C, K, tiles, Layout::nchw, kWgUStages, WgStaging::own_buffer).bytes <= shared_limit)
      return tiles;
  return 0;
}

// The tile groups a launch takes of a shape whose groups are `tiles` (fused_wg_tiles): 8 in place of 16 where the
// grid's groups of 8 all run at once (no more of them than SMs): a block then has half the producers' and the
// fold's work, and the grid takes more SMs. Measured on the H200 0.75x the time of groups of 16 on all 222 such
// random shapes (docs/performance.md, "Fused v5.25"; v5.31 found halves beside whole groups no better).
NOVA_HD constexpr int fused_wg_wave_tiles(int tiles, long long grid_tiles, int multiprocessors) {
  return tiles == kWgMaxTiles && (grid_tiles + kWgMaxTiles / 2 - 1) / (kWgMaxTiles / 2) <= multiprocessors ? kWgMaxTiles / 2 : tiles;
}

// The U stages of a launch with these tile groups: as many as the shared memory holds, up to
// kWgMaxUStages (each stage more is one more refill in flight while the consumer multiplies).
constexpr int fused_wg_u_stages(int n, int m, int C, int K, int tiles, Layout layout, long long shared_limit,
                                bool tc_input = false) {
  int stages = kWgUStages;
  while (stages < kWgMaxUStages &&
         fused_wg_layout(n, m, C, K, tiles, layout, stages + 1, WgStaging::by_outputs, tc_input).bytes <= shared_limit)
    ++stages;
  return stages;
}

// What each path of the kernel fixes at compile time (0: what the launch says):
//   - the registers a thread of each role gets: setmaxnreg moves them between the warpgroups within what the
//     block got at launch, 168 a thread (65536 / 384, in steps of 8); a consumer that asks for more than the
//     producers gave back waits for ever. On the FP path the producers' 136 hold both patches of an NHWC pass
//     (docs/performance.md, "Fused v5.20") and the consumer fits 232 without spilling; the tensor-core path's
//     producers fit 128, and its consumer takes the 16 more (v5.28);
//   - the V block skew (WgLayout::v_block), so that the consumer's descriptor steps are constants (as a
//     run-time value it cost the consumer 24-36 bytes of spills);
//   - on the tensor-core path, whose launches all have C = 64 (4 channel steps), one block of outputs and
//     kWgUStages U stages: a group's 24 stages are a multiple of the ring, so that every group starts at U slot
//     0 and the consumer resets its ring counters there to constants, and whether a stage's refill is wanted
//     follows from its place in the group (docs/performance.md, "Fused v5.28").
struct WgFpPlan {
  static constexpr bool tc_input = false;
  static constexpr int producer_registers = 136, consumer_registers = 232;
  static constexpr int skew = 0, steps = 0, blocks_k = 0, u_stages = 0;
};
struct WgTcPlan {
  static constexpr bool tc_input = true;
  static constexpr int producer_registers = 128, consumer_registers = 248;
  static constexpr int skew = kWgTcSkew, steps = kWgTcChannels / kFusedChannelStep, blocks_k = 1, u_stages = kWgUStages;
};
template <class Plan>
inline constexpr bool kWgRegistersFit =
    kWgProducerThreads * Plan::producer_registers + kWgConsumerThreads * Plan::consumer_registers <= 65536 / kWgThreads / 8 * 8 * kWgThreads;
static_assert(kWgRegistersFit<WgFpPlan> && kWgRegistersFit<WgTcPlan>, "the warpgroups' registers must fit the block's allocation");

// The U stages a launch runs. Where each block takes many tile groups of 16 (kWgManyGroups or more), no
// deeper than keeps the block's shared memory within kWgL1SharedBytes, down to kWgL1UStages: the SM then
// configures 196 KB of shared memory instead of 228 and keeps 60 KB of L1 (not 28) for the producers'
// input loads, which pays more there than the deeper ring (docs/performance.md, "Fused v5.22": at VGG-16
// 64@224 batch 8 and 32, 4 stages instead of 6 took 0.7-5.5 % off; at 64@56 batch 32, three groups a block,
// they added 1.5-3.5 %). On the tensor-core path the plan's (WgTcPlan), elsewhere as deep as the shared memory
// holds (fused_wg_u_stages).
inline constexpr int kWgManyGroups = 8;
inline constexpr int kWgL1UStages = 4;
inline constexpr long long kWgL1SharedBytes = 195 * 1024;  // the 196 KB configuration less the 1 KB reserved a block
constexpr int fused_wg_launch_u_stages(int n, int m, int C, int K, int tiles, Layout layout, long long shared_limit,
                                       long long grid_tiles, int blocks, bool tc_input = false) {
  if (tc_input) return WgTcPlan::u_stages;
  int stages = fused_wg_u_stages(n, m, C, K, tiles, layout, shared_limit);
  const long long groups = (grid_tiles + tiles - 1) / tiles;
  if (tiles == kWgMaxTiles && groups >= static_cast<long long>(kWgManyGroups) * blocks)
    while (stages > kWgL1UStages &&
           fused_wg_layout(n, m, C, K, tiles, layout, stages).bytes > kWgL1SharedBytes)
      --stages;
  return stages;
}

// Whether a fused forward of this shape on this device runs the wgmma kernel (else the mma.sync one);
// the filter's layout follows.
constexpr bool fused_uses_wgmma(const FusedDevice& device, int n, int m, int C, int K) {
  return device.wgmma && fused_wg_tiles(n, m, C, K, device.shared_limit) > 0;
}

// Where U_xi[k][c] lies in the wgmma filter layout (K padded to 64, C to 16): blocks of 64 (k) x 16
// (c) in wgmma's A layout, ordered (k / 64, domain row i, c / 16, domain column j), the order the
// consumer multiplies them in, so that each U stage (the n blocks of one row and channel step) is
// one contiguous copy.
NOVA_HD constexpr long long fused_wg_filter_index(int n, int xi, int k, int c, int C) {
  const int steps = fused_padded_channels(C) / kFusedChannelStep, i = xi / n, j = xi % n;
  const long long block = ((static_cast<long long>(k / kWgRows) * n + i) * steps + c / kFusedChannelStep) * n + j;
  return block * wg_operand_elements(kWgRows) + wg_operand_offset(k % kWgRows, c % kFusedChannelStep);
}
constexpr long long fused_wg_filter_elements(int n, int K, int C) {
  return static_cast<long long>(n) * n * fused_wg_padded_outputs(K) * fused_padded_channels(C);
}

// Element (tile t, channel c) of position xi's V in a V slot of n^2 positions: per channel step the nn
// positions' B blocks of v_block elements (WgLayout), so that a producer's stores of one channel pair's
// positions lie at constant distances (immediate offsets: docs/performance.md, "Fused v5.17").
NOVA_HD constexpr int fused_wg_v_offset(int xi, int t, int c, int nn, int v_block) {
  return (c / kFusedChannelStep * nn + xi) * v_block + wg_operand_offset(t, c % kFusedChannelStep);
}

// The tiles of the tile group that starts at tile `first` of the grid's `tiles`, in groups of `size` (fewer in
// the last group).
NOVA_HD constexpr int fused_wg_group_tiles(long long tiles, long long first, int size) {
  return tiles - first < size ? static_cast<int>(tiles - first) : size;
}

// The tiles a tile group of a tensor-core launch takes (its kernel's kTiles = 16): as few, in whole batches of both
// producer warpgroups (4 tiles), as keep the grid's waves (groups a block) what groups of 16 make, so that every SM
// takes about as many tiles. The consumer's products stay 16 tiles wide, but the producers transform and store only
// the group's tiles. The FP path's producers own fixed tiles whatever the group, so there it stays kTiles.
NOVA_HD constexpr int fused_wg_group_size(int tiles, long long grid_tiles, int multiprocessors, bool tc_input) {
  if (!tc_input || grid_tiles < 1 || multiprocessors < 1) return tiles;
  const long long slots = static_cast<long long>(tiles) * multiprocessors;
  const long long blocks = (grid_tiles + slots - 1) / slots * multiprocessors;  // the waves' groups
  constexpr int kWhole = 4;
  const long long size = ((grid_tiles + blocks - 1) / blocks + kWhole - 1) / kWhole * kWhole;
  return size < tiles ? static_cast<int>(size) : tiles;
}

// The persistent grid: one block an SM, no more than the tile groups.
inline int fused_wg_blocks(long long tiles, int tile_group, int multiprocessors) {
  const long long groups = (tiles + tile_group - 1) / tile_group;
  return static_cast<int>(groups < multiprocessors ? groups : multiprocessors);
}

#if defined(NOVA_FUSED_WGMMA) || defined(NOVA_KERNEL_EMULATION)

// The barriers of each role alone (ids 1 and 2; __syncthreads is 0).
__device__ inline void wg_consumer_sync() { wg_named_sync<1, kWgConsumerThreads>(); }
__device__ inline void wg_producer_sync() { wg_named_sync<2, kWgProducerThreads>(); }
// A barrier of producer warpgroup w alone (ids 3 and 4).
__device__ inline void wg_named_sync_of(int w) {
  if (w == 0) wg_named_sync<3, 128>();
  else wg_named_sync<4, 128>();
}

// What both roles see of the block.
template <typename T>
struct WgBlock {
  WgBarrier* v_full;   // [kWgVSlots]: the producers have written the slot (256 arrivals)
  WgBarrier* v_empty;  // [kWgVSlots]: the consumer has multiplied it (128 arrivals)
  WgBarrier* u_full;   // [layout.u_stages]: the stage's bytes have arrived (1 arrival + bytes)
  WgBarrier* staged;   // the consumer has staged a block of outputs (128 arrivals)
  WgBarrier* stored;   // the producers have stored them: the staging buffer of its own is free (256 arrivals)
  T* v;                // [kWgVSlots][v_slot]
  T* u;                // [layout.u_stages][u_stage]
  T* staging;          // where the staging is not in a V slot
  TileOrigin* origins;  // [kWgVSlots][kWgMaxTiles]: of the tiles of the group in each V slot
  WgBarrier* tc_copied;  // [2 warpgroups][2 slots]: a slot's patches have arrived (1 arrival + bytes); layout.tc_input
  char* tc_slots;        // [2][2][kWgTcSlotBytes], 1024-aligned
  WgLayout layout;
  long long groups;    // tile groups of the whole grid
  int group_size;      // tiles a tile group (the last may have fewer): FusedConvArgs::group_tiles, else kTiles
  // The staged outputs of the tile group in V slot `slot`.
  NOVA_HD T* staging_of(int slot) const { return layout.staging_in_slot ? v + slot * layout.v_slot : staging; }
};

// Whether the copy engine stores the staged outputs: NHWC with K = 64, every channel of a pixel staged,
// so that a tile row is one run in y and in the staging (fused_wg_store); the consumer fences its staging
// writes for it.
NOVA_HD constexpr bool fused_wg_bulk_stores(Layout layout, int K) { return layout == Layout::nhwc && K == kWgRows; }

// The producers' second task: the outputs the consumer staged for block kh of the group in V slot
// `slot` (the e-th staging of the block), stored to y: NHWC as 16-byte channel runs of a pixel, NCHW
// as consecutive tiles of a plane row; then the buffer is free again.
template <class Transform, typename T, Layout layout, int kTiles>
__device__ __forceinline__ void fused_wg_store(const FusedConvArgs& a, const WgBlock<T>& blk, int slot,
                                               long long first_tile, int kh, int e, int thread) {
  constexpr int m = Transform::m;
  const TileGrid& g = a.grid;
  T* y = static_cast<T*>(a.y);
  const TileOrigin* origins = blk.origins + slot * kWgMaxTiles;
  const T* staging = blk.staging_of(slot);
  wg_wait(blk.staged, e & 1);
  if constexpr (layout == Layout::nhwc) {
    const int tiles = fused_wg_group_tiles(g.tiles, first_tile, blk.group_size);
    if (fused_wg_bulk_stores(layout, a.K)) {
      // A tile row from its staged pixels (contiguous too). A lane a row, the rows spread over the warps; a copy
      // takes its operands from uniform registers, so that a warp issues its lanes' copies one after
      // another (docs/performance.md, "Fused v5.14").
      constexpr int kWarps = kWgProducerThreads / 32;
#pragma unroll 1
      for (int unit = thread / 32 + kWarps * (thread % 32); unit < tiles * m; unit += kWgProducerThreads) {
        const int t = unit / m, r = unit % m;
        const TileOrigin o = origins[t];
        const int row = o.row + r, inside = g.out_width - o.col;
        if (row >= g.out_height) continue;
        T* to = y + (static_cast<long long>(o.image * g.out_height + row) * g.out_width + o.col) * kWgRows;
        const T* from = staging + fused_wg_staging_offset<layout>(t, r * m, 0, m, kTiles);
        wg_bulk_store(to, from, (inside < m ? inside : m) * kWgRows * static_cast<int>(sizeof(T)));
      }
      wg_bulk_stores_read();  // before the staging is free again
    } else {
      // A thread keeps one 16-byte run of one pixel (consecutive threads: the runs of a pixel, then the
      // pixels of a tile) and steps through the tiles: its channels, pixel and checks once a staging.
      constexpr int kRuns = kWgRows / 8, kTileThreads = m * m * kRuns, kTileStep = kWgProducerThreads / kTileThreads;
      static_assert(kTileStep >= 1, "a tile's runs fit the producers");
      const int run = thread % kRuns, p = thread / kRuns % (m * m), k = kh * kWgRows + run * 8;
      if (thread < kTileStep * kTileThreads && k < a.K) {
#pragma unroll 1
        for (int t = thread / kTileThreads; t < tiles; t += kTileStep) {
          const TileOrigin o = origins[t];
          const int row = o.row + p / m, col = o.col + p % m;
          if (row >= g.out_height || col >= g.out_width) continue;
          T* to = y + (static_cast<long long>(o.image * g.out_height + row) * g.out_width + col) * a.K + k;
          const T* from = staging + fused_wg_staging_offset<layout>(t, p, run * 8, m, kTiles);
          if (a.K % 8 == 0) {
            copy_run(to, from);
          } else {
            for (int c = 0; c < 8 && k + c < a.K; ++c) to[c] = from[c];
          }
        }
      }
    }
  } else {
    // A thread keeps one tile row (consecutive threads: consecutive tiles of a row) and takes every
    // kChannelStep-th channel of the block: the tile's origin, the checks and the addresses once,
    // where a unit of (tile, row, channel) each took about 57 instructions for its one 8-byte store
    // (docs/performance.md, "Fused v5.10").
    constexpr int kTileRows = kTiles * m, kChannelStep = kWgProducerThreads / kTileRows;
    static_assert(kWgProducerThreads % kTileRows == 0, "every thread a tile row");
    const int t = thread % kTiles, r = thread / kTiles % m, kl = thread / kTileRows;
    if (t < fused_wg_group_tiles(g.tiles, first_tile, blk.group_size)) {
      const TileOrigin o = origins[t];
      const int row = o.row + r, left = a.K - kh * kWgRows, channels = left < kWgRows ? left : kWgRows;
      if (row < g.out_height) {
        const bool runs = nchw_rows_on_runs<m>(y, g.out_width);
        const long long plane = static_cast<long long>(g.out_height) * g.out_width;
        T* to = y + (static_cast<long long>(o.image) * a.K + kh * kWgRows + kl) * plane +
                static_cast<long long>(row) * g.out_width + o.col;
        const T* from = staging + fused_wg_staging_offset<layout>(t, r * m, kl, m, kTiles);
        constexpr int kStagedStep = fused_wg_staging_offset<layout>(0, 0, kChannelStep, m, kTiles);
#pragma unroll 1
        for (int c = kl; c < channels; c += kChannelStep, to += kChannelStep * plane, from += kStagedStep)
          store_staged_tile_row<m>(to, from, o.col, g.out_width, runs);
      }
    }
  }
  if (!blk.layout.staging_in_slot) wg_arrive(blk.stored);  // in a slot, the slot's own barriers free it
}

// The tile whose patch starts at shared address `patch_at`, its patch rows `row_bytes` apart, into d: its three k-steps
// (two patch rows each), each with the tables of Bk that are not zero there (kSecondRows: the second table's patch
// rows; the shipped sets' third k-step, patch rows 4 and 5, has none: those columns of B^T are powers of two),
// one commit group.
template <typename T, int kTerms, unsigned kSecondRows>
__device__ inline void fused_wg_tc_tile(float (&d)[32], const WgTcFragments<kTerms>& f, std::uint32_t patch_at,
                                        std::uint32_t row_bytes, int thread) {
  wgmma_fence();
#pragma unroll
  for (int q = 0; q < 3; ++q) {
    const std::uint64_t patch = wg_swizzled_descriptor(patch_at + 2 * q * row_bytes, row_bytes);
    wgmma_m64n64k16_ra<T>(d, f.a[0][q], patch, q > 0, thread);
    if constexpr (kTerms == 2)
      if ((kSecondRows >> 2 * q & 3u) != 0) wgmma_m64n64k16_ra<T>(d, f.a[1][q], patch, true, thread);  // q unrolled: no branch
  }
  wgmma_commit();
}
// Thread `thread`'s rows (positions) of tile t of the group into the V slot as storage pairs: one address a
// tile, the rest at constant distances (fused_wg_v_offset; accumulator e: position + 8 (e / 2 % 2), channel
// 8 (e / 4) + 2 (l % 4)).
template <typename T, int kTiles>
__device__ inline void fused_wg_tc_store(const float (&d)[32], T* v, int thread, int t) {
  constexpr int nn = kWgTcSide * kWgTcSide, kBlock = kTiles * kWgDepth + kWgTcSkew;
  const int xi = thread / 32 * 16 + thread % 32 / 4, c = thread % 4 * 2;
  T* base = v + fused_wg_v_offset(xi, t, c, nn, kBlock);
  const bool low = xi < nn, high = xi + 8 < nn;
#pragma unroll
  for (int e = 0; e < 32; e += 2)
    if (e / 2 % 2 ? high : low)
      store_pair(base + fused_wg_v_offset(8 * (e / 2 % 2), 0, 8 * (e / 4), nn, kBlock), d[e], d[e + 1]);
}
// V of the tile group by the tensor cores: producer warpgroup w takes the batches of kWgTcBatch tiles
// w kWgTcBatch + 2 i kWgTcBatch that hold a tile of the group, batch i into its slot (`used` + i) % 2, each tile's
// patch by one tensor copy; `used` counts the warpgroup's batches of the groups before (the slots' phases follow).
template <typename T, int kTiles, int kTerms, unsigned kSecondRows>
__device__ __forceinline__ void fused_wg_tc_group(const FusedConvArgs& a, const WgTensorMap& x_map, const WgBlock<T>& blk,
                                                  const WgTcFragments<kTerms>& f, T* v, const TileOrigin* origins, int group_tiles,
                                                  unsigned& used, int thread) {
  static_assert(kTiles % (2 * kWgTcBatch) == 0, "whole batches of both warpgroups");
  const TileGrid& g = a.grid;
  const int w = thread / 128, tid = thread % 128;
  char* slots = blk.tc_slots + 2 * w * kWgTcSlotBytes;
  const auto first_of = [&](int i) { return w * kWgTcBatch + 2 * i * kWgTcBatch; };
  const int batches = (group_tiles - w * kWgTcBatch + 2 * kWgTcBatch - 1) / (2 * kWgTcBatch);
  static_assert(kWgTcBatch == 2, "a batch is one pair of neighbours");
  const bool pairs = a.tc_input == 2;
  const std::uint32_t tile_bytes = pairs ? (kWgTcPairWidth - kWgTcSide) * 128 : kWgTcTileBytes,
                      row_bytes = (pairs ? kWgTcPairWidth : kWgTcSide) * 128;
  const auto copy = [&](int i) {  // one thread: batch i's patches into its slot
    const unsigned slot = (used + i) % 2;
    WgBarrier* copied = blk.tc_copied + 2 * w + slot;
    const int first = first_of(i);
    int tiles = 0;
    for (int b = 0; b < kWgTcBatch; ++b) tiles += first + b < group_tiles;
    const int copies = pairs ? (tiles > 0) : tiles;
    wg_arrive_expect_bytes(copied, copies * kWgTcSide * static_cast<int>(row_bytes));  // a box: kWgTcSide rows of pixels
    for (int b = 0; b < copies; ++b) {
      const TileOrigin o = origins[first + b];
      wg_tensor_copy(slots + (slot * kWgTcBatch + b) * kWgTcTileBytes, x_map.bytes, 0, o.col - g.pad, o.row - g.pad, o.image, copied);
    }
  };
  wg_named_sync_of(w);  // every warp's products of the group before are done: both slots are free
  if (tid == 0)
    for (int i = 0; i < 2 && i < batches; ++i) copy(i);
#pragma unroll 1
  for (int i = 0; i < batches; ++i) {
    const unsigned slot = (used + i) % 2;
    wg_wait(blk.tc_copied + 2 * w + slot, ((used + i) / 2) & 1);
    const std::uint32_t at = wg_shared_address(slots + slot * kWgTcSlotBytes);
#pragma unroll
    for (int b = 0; b < kWgTcBatch; b += 2) {  // two tiles in flight: the second's products run while the first's results are stored
      float d0[32], d1[32];
      fused_wg_tc_tile<T, kTerms, kSecondRows>(d0, f, at + b * tile_bytes, row_bytes, tid);
      fused_wg_tc_tile<T, kTerms, kSecondRows>(d1, f, at + (b + 1) * tile_bytes, row_bytes, tid);
      wgmma_wait<1>();
      wg_fence_registers(d0);
      fused_wg_tc_store<T, kTiles>(d0, v, tid, first_of(i) + b);
      wgmma_wait<0>();
      wg_fence_registers(d1);
      fused_wg_tc_store<T, kTiles>(d1, v, tid, first_of(i) + b + 1);
    }
    if (i + 2 < batches) {
      wg_named_sync_of(w);  // every warp's products of the slot are done
      if (tid == 0) copy(i + 2);
    }
  }
  used += static_cast<unsigned>(batches);
}

// One item of the producers: a channel pair of one tile.
struct WgItem {
  int t, c;     // the tile in the group, the pair's first channel
  bool valid;   // the item exists: a tile of the grid, a channel of x
  bool second;  // channel c + 1 exists
};

// The producers' loop: V of each of the block's tile groups (blockIdx.x, + gridDim.x, ...) into slot
// q % 2, once the consumer has released it (`transform(v, origins, group_tiles)` writes it), then the
// outputs of the group before (the consumer stages them while the producers transform the next group).
template <class Transform, typename T, Layout layout, int kTiles, typename TransformGroup>
__device__ __forceinline__ void fused_wg_produce_groups(const FusedConvArgs& a, const WgBlock<T>& blk, int thread,
                                                        TransformGroup transform) {
  const TileGrid& g = a.grid;
  const int blocks_k = fused_wg_padded_outputs(a.K) / kWgRows;
  int stagings = 0;  // stored so far
#pragma unroll 1
  for (long long group = blockIdx.x, q = 0;; group += gridDim.x, ++q) {
    const int slot = static_cast<int>(q % kWgVSlots);
    if (group < blk.groups) {
      if (q >= kWgVSlots) wg_wait(&blk.v_empty[slot], static_cast<int>(q / kWgVSlots - 1) & 1);
      TileOrigin* origins = blk.origins + slot * kWgMaxTiles;
      const long long first_tile = group * blk.group_size;
      const int group_tiles = fused_wg_group_tiles(g.tiles, first_tile, blk.group_size);
      if (thread < group_tiles) origins[thread] = tile_origin(g, first_tile + thread, Transform::m);
      wg_producer_sync();
      transform(blk.v + slot * blk.layout.v_slot, static_cast<const TileOrigin*>(origins), group_tiles);
      wg_fence_operands();  // the tensor cores read the slot next
      wg_arrive(&blk.v_full[slot]);
    }
    if (q >= 1) {  // the group before, in the other slot
      const long long before = group - gridDim.x;
      for (int kh = 0; kh < blocks_k; ++kh, ++stagings)
        fused_wg_store<Transform, T, layout, kTiles>(a, blk, static_cast<int>((q - 1) % kWgVSlots), before * blk.group_size, kh,
                                                     stagings, thread);
    }
    if (group >= blk.groups) break;
    wg_producer_sync();  // every producer is done with the origins (and staging) of the slot it refills next
  }
  if constexpr (layout == Layout::nhwc) wg_bulk_stores_done();  // y complete before the block ends
}

// The producers: each tile group's V on the tensor cores on that path (WgTcPlan: the fragments of Bk loaded from
// kWgTcFragments, then the slots zeroed once, as the rows past each patch are read with zero weights and must be
// finite; fused_wg_produce_groups' barrier orders the zeros before the first copy), else in fp32. A thread takes a
// channel pair of one tile per item; NHWC: a warp takes 4 pairs (16 bytes of a pixel) of 8 tiles, NCHW: consecutive
// tiles of a pair; either way a warp's 4-byte stores into the slot cover 32 different banks (NCHW: two ways). Each
// path is its own instantiation, so that the fragments' registers do not weigh on the other.
template <class Transform, typename T, Layout layout, int kTiles, class Plan>
__device__ __forceinline__ void fused_wg_produce(const FusedConvArgs& a, const WgTensorMap& x_map, const WgBlock<T>& blk, int thread) {
  constexpr int n = Transform::n, m = Transform::m, nn = n * n;
  if constexpr (Plan::tc_input) {
    using Tables = WgTcTables<Transform, T>;
    constexpr int kTerms = Tables::terms;
    const WgTcFragments<kTerms> fragments = kWgTcFragments<Transform, T>.thread[thread % 128];
    for (int i = thread; i < 4 * kWgTcSlotBytes / 4; i += kWgProducerThreads) reinterpret_cast<std::uint32_t*>(blk.tc_slots)[i] = 0;
    wg_fence_operands();  // before the copy engine writes there
    unsigned used = 0;  // this warpgroup's batches so far
    return fused_wg_produce_groups<Transform, T, layout, kTiles>(a, blk, thread, [&](T* v, const TileOrigin* origins, int group_tiles) {
      fused_wg_tc_group<T, kTiles, kTerms, Tables::second_rows>(a, x_map, blk, fragments, v, origins, group_tiles, used, thread);
    });
  }
  const TileGrid& g = a.grid;
  const T* x = static_cast<const T*>(a.x);
  const int C = g.channels, items = blk.layout.steps * (kFusedChannelStep / 2) * kTiles;
  const int plane = layout == Layout::nhwc ? 1 : g.height * g.width;
  const bool word = layout == Layout::nhwc && C % 2 == 0;
  fused_wg_produce_groups<Transform, T, layout, kTiles>(a, blk, thread, [&](T* v, const TileOrigin* origins, int group_tiles) {
    // Item `item`: its tile, its first channel, and whether it and its second channel exist.
    const auto item_at = [&](int item) {
      WgItem it;
      it.t = layout == Layout::nhwc ? item / 4 % kTiles : item % kTiles;
      it.c = 2 * (layout == Layout::nhwc ? item % 4 + item / (4 * kTiles) * 4 : item / kTiles);
      it.valid = it.t < group_tiles && it.c < C;
      it.second = word || it.c + 1 < C;
      return it;
    };
    // V of channels c and c + 1 of tile t; `second`: channel c + 1 exists (a constant where every
    // pair is whole: no select an element).
    // (This path's V blocks are kTiles x 16 elements, no skew: constant distances, immediate offsets.)
    const auto store_item = [&](int t, int c, bool second, const float(&v0)[nn], const float(&v1)[nn]) {
      constexpr int kBlock = kTiles * kWgDepth;
      T* at = v + fused_wg_v_offset(0, t, c, nn, kBlock);
#pragma unroll
      for (int xi = 0; xi < nn; ++xi) store_pair(at + xi * kBlock, v0[xi], second ? v1[xi] : 0.0f);
    };
    // NHWC with C even (one word an element, every pair whole): two items a pass, of the same tile
    // (its origin and patch offsets once), both patches loaded before the first is transformed, so
    // that the later one's loads are in flight behind that transform (at 128 producer registers
    // this spilled, and the later patch waited until the first item was stored); elsewhere an item
    // a pass.
    bool in_pairs = false;
    if constexpr (layout == Layout::nhwc) in_pairs = word;
    if (in_pairs) {
#pragma unroll 1
      for (int item = thread; item < items; item += 2 * kWgProducerThreads) {
        // The later item: the same tile (item_at's NHWC order), 2 * kWgProducerThreads / kTiles channels further.
        static_assert(kWgProducerThreads / 4 % kTiles == 0, "an item and the one kWgProducerThreads later share a tile");
        const WgItem first = item_at(item);
        constexpr int kLater = 2 * kWgProducerThreads / kTiles;
        const bool later_valid = first.valid && item + kWgProducerThreads < items && first.c + kLater < C;
        const TileOrigin o = origins[first.valid ? first.t : 0];
        StoragePair<T> raw_first[nn], raw_later[nn];
        load_pair_patch<n, m, layout>(x, g, o, first.c, first.valid, plane, true, raw_first);
        load_pair_patch<n, m, layout>(x, g, o, first.c + kLater, later_valid, plane, true, raw_later);
        float v0[nn], v1[nn];
        transform_pair_patch<Transform, T>(raw_first, v0, v1);
        store_item(first.t, first.c, true, v0, v1);
        if (item + kWgProducerThreads < items) {
          transform_pair_patch<Transform, T>(raw_later, v0, v1);
          store_item(first.t, first.c + kLater, true, v0, v1);
        }
      }
    } else {
#pragma unroll 1
      for (int item = thread; item < items; item += kWgProducerThreads) {
        const WgItem it = item_at(item);
        float d0[nn], d1[nn], v0[nn], v1[nn];
        load_pair_patch_float<n, m, layout>(x, g, origins[it.valid ? it.t : 0], it.c, it.valid, it.second ? plane : 0, word,
                                            d0, d1);
        Transform::input_2d(d0, v0);
        Transform::input_2d(d1, v1);
        store_item(it.t, it.c, it.second, v0, v1);
      }
    }
  });
}

// The consumer's epilogue of block kh of the tile group in V slot `slot` (the e-th staging of the
// block): bias and ReLU of every output, staged for the producers once the buffer is free: a staging of
// its own once they have stored the one before, the slot once every consumer warp's products are done.
template <class Transform, typename T, Layout layout, int kTiles>
__device__ __forceinline__ void fused_wg_stage(const FusedConvArgs& a, const WgBlock<T>& blk,
                                               const float (&out)[Transform::m * Transform::m][kTiles / 2], int kh, int e,
                                               int slot, int thread) {
  constexpr int m = Transform::m;
  // The staging's addresses and biases are computed here, not hoisted out of the group loop: held through the rows'
  // folds, they made ptxas spill in the NHWC consumers of the F(4,3) sets with denser output transforms than the
  // standard one (docs/results/kernel_spills/).
  wg_opaque(thread);
  // A thread's accumulators lie in two rows (wg_accumulator_row: d / 2 % 2 picks one): their biases
  // are read before the wait, so that the loads' latency hides in it.
  float biases[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int k = kh * kWgRows + wg_accumulator_row(thread, 2 * h);
    biases[h] = a.bias && k < a.K ? a.bias[k] : 0.0f;
  }
  if (blk.layout.staging_in_slot) {
    wg_consumer_sync();
  } else if (e > 0) {
    wg_wait(blk.stored, (e - 1) & 1);
  }
  T* staging = blk.staging_of(slot);
  const auto output = [&](int p, int d) {
    const float value = out[p][d] + biases[d / 2 % 2];
    return a.relu ? fmaxf(value, 0.0f) : value;
  };
  if constexpr (layout == Layout::nhwc) {
    // A pixel's outputs by stmatrix .trans: register i holds the pair of accumulators 2i, 2i + 1, matrix i
    // the 8 x 8 of channel block i % 2 and tile block i / 2; a column (a tile) is 8 channels, one run of
    // the staging (its tiles 16 bytes apart modulo 128: a matrix's 8 columns meet 8 groups of banks).
    constexpr int kMatrices = kTiles / 4;
    const int lane = thread % 32, i = lane / 8 % kMatrices;
    T* column = staging + fused_wg_staging_offset<layout>(i / 2 * 8 + lane % 8, 0, thread / 32 * 16 + i % 2 * 8, m, kTiles);
#pragma unroll
    for (int p = 0; p < m * m; ++p) {
      std::uint32_t words[kMatrices];
#pragma unroll
      for (int w = 0; w < kMatrices; ++w) words[w] = wg_pair_word<T>(output(p, 2 * w), output(p, 2 * w + 1));
      wg_store_matrices_transposed(column + fused_wg_staging_offset<layout>(0, p, 0, m, kTiles), words);
    }
  } else {
    // A (channel, tile)'s pixels are a run of the staging: two a store where a tile's run is even (and so
    // every pair 4-byte aligned).
    constexpr int kRun = m * m % 2 == 0 ? 2 : 1;
#pragma unroll
    for (int d = 0; d < kTiles / 2; ++d) {
      T* run = staging + fused_wg_staging_offset<layout>(wg_accumulator_column(thread, d), 0, wg_accumulator_row(thread, d), m, kTiles);
#pragma unroll
      for (int p = 0; p < m * m; p += kRun) {
        if constexpr (kRun == 2) store_pair(run + p, output(p, d), output(p + 1, d));
        else store(run + p, output(p, d));
      }
    }
  }
  if (fused_wg_bulk_stores(layout, a.K)) wg_fence_operands();
  wg_arrive(blk.staged);
}

// Row i of M (the products of domain row i, every channel summed) folded into the outputs: through
// A^T along the row, then scaled by column i of A^T into every output row.
template <class Transform, int kAcc>
__device__ __forceinline__ void fused_wg_fold(const float (&mrow)[Transform::n][kAcc], int i,
                                              float (&out)[Transform::m * Transform::m][kAcc]) {
  constexpr int m = Transform::m, n = Transform::n;
  float column[m], unit[n];
#pragma unroll
  for (int j = 0; j < n; ++j) unit[j] = j == i ? 1.0f : 0.0f;
  Transform::output_1d(unit, 1, column, 1);
#pragma unroll
  for (int e = 0; e < kAcc; ++e) {
    float z[m];
    Transform::output_1d(&mrow[0][e], kAcc, z, 1);
#pragma unroll
    for (int r = 0; r < m; ++r)
      if (column[r] != 0.0f)  // a constant after unrolling: no products with A^T's zeros
#pragma unroll
        for (int s = 0; s < m; ++s) out[r * m + s][e] += column[r] * z[s];
  }
}

// fused_wg_fold of a row while the next row's products are in flight: the fences keep the compiler from moving the
// fold's reads and its sums across those products (else ptxas serialises every wgmma, C7511).
template <class Transform, int kAcc>
__device__ __forceinline__ void fused_wg_fold_beside_products(float (&mrow)[Transform::n][kAcc], int i,
                                                              float (&out)[Transform::m * Transform::m][kAcc]) {
  wg_fence_registers(mrow);
  wg_fence_registers(out);
  fused_wg_fold<Transform>(mrow, i, out);
  wg_fence_registers(out);
}

// The consumer: for each of the block's tile groups, each block of 64 output channels and each
// domain row, the products of every channel step, folded into the outputs; then the epilogue.
template <class Transform, typename T, Layout layout, int kTiles, class Plan>
__device__ __forceinline__ void fused_wg_consume(const FusedConvArgs& a, const WgBlock<T>& blk, int thread) {
  constexpr int m = Transform::m, n = Transform::n, kAcc = kTiles / 2;
  static_assert(kTiles <= kWgMaxTiles, "the origins arrays hold kWgMaxTiles tiles");
  constexpr bool kFixed = Plan::steps > 0;
  constexpr int kGroupStages = Plan::blocks_k * n * Plan::steps;
  if constexpr (kFixed)
    static_assert(Plan::blocks_k > 0 && Plan::u_stages > 0 && kGroupStages % Plan::u_stages == 0 && kGroupStages >= Plan::u_stages,
                  "a fixed plan's groups start at U slot 0, and its fetches reach at most into the next group");
  const int steps = kFixed ? Plan::steps : blk.layout.steps;
  const int blocks_k = kFixed ? Plan::blocks_k : fused_wg_padded_outputs(a.K) / kWgRows;
  const int u_stages = kFixed ? Plan::u_stages : blk.layout.u_stages;
  const int stages_per_group = blocks_k * n * steps;
  const long long my_groups = (blk.groups - blockIdx.x + gridDim.x - 1) / gridDim.x;
  const long long total = my_groups * stages_per_group;
  const T* U = static_cast<const T*>(a.U);
  constexpr int kUStage = n * wg_operand_elements(kWgRows);  // WgLayout::u_stage
  // The next stage to fetch: the block's sequence repeats the filter's stages_per_group stages for
  // each tile group, into slot `fetch_slot` (fetched % u_stages). Counted, not divided: a 64-bit
  // division (or the multiply-high that replaces it) would hold up the warp every stage. `wanted`: a
  // stage of the block's sequence (fetched < total; a fixed plan knows it from the stage's place).
  long long fetched = 0;
  int fetch_from = 0, fetch_slot = 0;  // fetched % stages_per_group, fetched % u_stages
  const auto fetch_next = [&](bool wanted) {
    if (thread == 0 && wanted) {
      WgBarrier* full = &blk.u_full[fetch_slot];
      wg_arrive_expect_bytes(full, kUStage * 2);
      wg_bulk_copy(blk.u + fetch_slot * kUStage, U + static_cast<long long>(fetch_from) * kUStage, kUStage * 2, full);
    }
    ++fetched;
    fetch_from = fetch_from + 1 == stages_per_group ? 0 : fetch_from + 1;
    fetch_slot = fetch_slot + 1 == u_stages ? 0 : fetch_slot + 1;
  };
  for (int f = 0; f < u_stages - 1; ++f) fetch_next(fetched < total);
  int stage = 0, phase = 0;  // of the next stage to multiply: its slot, and its barrier's parity
  int q = 0, stagings = 0;
#pragma unroll 1
  for (long long group = blockIdx.x; group < blk.groups; group += gridDim.x, ++q) {
    const int slot = q % kWgVSlots;
    // The last group's fetches of stages beyond it are not made.
    const bool last = group + gridDim.x >= blk.groups;
    if constexpr (kFixed) {
      // The counters' values at every group's start, as constants (the parity of the group's first use of
      // each slot alone depends on the group).
      stage = 0, fetch_slot = Plan::u_stages - 1, fetch_from = Plan::u_stages - 1;
      phase = q * (kGroupStages / Plan::u_stages) & 1;
    }
    wg_wait(&blk.v_full[slot], (q / kWgVSlots) & 1);
    const T* v = blk.v + slot * blk.layout.v_slot;
    const std::uint64_t v_desc = wg_descriptor(wg_shared_address(v)), u_desc = wg_descriptor(wg_shared_address(blk.u));
    // Bytes from one V block (tiles x 16 channels) to the next (a position; n^2 of them a channel
    // step), and from one U stage to the next.
    constexpr unsigned kVStepBytes = (kTiles * kWgDepth + Plan::skew) * 2, kUStageBytes = kUStage * 2;
    constexpr unsigned kUBlockBytes = wg_operand_elements(kWgRows) * 2;
#pragma unroll 1
    for (int kh = 0; kh < blocks_k; ++kh) {
      float out[m * m][kAcc] = {};
      // Rows in turn in two accumulator sets: row i - 1 is folded while row i's first stage multiplies.
      // That stage is outside the loop over the rest, so that ptxas sees row i - 1's products retired
      // by its wait; each row's first products overwrite the set (scale-d off), so nothing zeroes it
      // while products are in flight (fused_wg_fold_beside_products).
      float rows[2][n][kAcc];
      // The products of domain row i and channel step `step` (the next stage), into `mrow`.
      const auto multiply = [&](int i, int step, float(&mrow)[n][kAcc]) {
        wg_wait(&blk.u_full[stage], phase);
        const std::uint64_t u_block = wg_descriptor_advance(u_desc, static_cast<unsigned>(stage) * kUStageBytes),
                            v_block = wg_descriptor_advance(v_desc, static_cast<unsigned>(step * n * n + i * n) * kVStepBytes);
#pragma unroll
        for (int j = 0; j < n; ++j)
          wgmma_m64k16<T, kTiles>(mrow[j], wg_descriptor_advance(u_block, j * kUBlockBytes),
                                  wg_descriptor_advance(v_block, static_cast<unsigned>(j) * kVStepBytes), step > 0, thread);
        wgmma_commit();
        wgmma_wait<1>();      // the products of the stage before are done
        wg_consumer_sync();   // in every warp: its slot is free
        // The stage u_stages - 1 after this one, into the slot of the one before.
        fetch_next(kFixed ? !last || (kh * n + i) * steps + step + Plan::u_stages - 1 < kGroupStages : fetched < total);
        if (++stage == u_stages) stage = 0, phase ^= 1;
      };
#pragma unroll
      for (int i = 0; i < n; ++i) {
        wgmma_fence();
        multiply(i, 0, rows[i % 2]);
        if (i > 0) fused_wg_fold_beside_products<Transform>(rows[(i - 1) % 2], i - 1, out);  // row i - 1 is done
#pragma unroll 1
        for (int step = 1; step < steps; ++step) multiply(i, step, rows[i % 2]);
      }
      wgmma_wait<0>();
      if (kh == blocks_k - 1) wg_arrive(&blk.v_empty[slot]);  // the producers may refill it
      fused_wg_fold<Transform>(rows[(n - 1) % 2], n - 1, out);
      fused_wg_stage<Transform, T, layout, kTiles>(a, blk, out, kh, stagings++, slot, thread);
    }
  }
}

// Each warpgroup to its role, with the registers of the path's plan (WgFpPlan, WgTcPlan).
template <class Transform, typename T, Layout layout, int kTiles, class Plan>
__device__ __forceinline__ void fused_wg_roles(const FusedConvArgs& a, const WgTensorMap& x_map, const WgBlock<T>& blk, int thread) {
  if (thread < kWgProducerThreads) {
    wg_set_registers<Plan::producer_registers>(false);
    fused_wg_produce<Transform, T, layout, kTiles, Plan>(a, x_map, blk, thread);
  } else {
    wg_set_registers<Plan::consumer_registers>(true);
    fused_wg_consume<Transform, T, layout, kTiles, Plan>(a, blk, thread - kWgProducerThreads);
  }
}

// The kernel body: barriers and shared memory, then each warpgroup to its role on the launch's path.
template <class Transform, typename T, Layout layout, int kTiles>
__device__ void fused_wg_conv_tiles(const FusedConvArgs& a, const WgTensorMap& x_map) {
  static_assert(fused_tile_supported(Transform::m, Transform::n), "a tile the fused kernels take (kernel_table.hpp)");
  const TileGrid& g = a.grid;
  char* shared = fused_shared_memory();
  WgBlock<T> blk;
  blk.v_full = reinterpret_cast<WgBarrier*>(shared);
  blk.v_empty = blk.v_full + kWgVSlots;
  blk.u_full = blk.v_empty + kWgVSlots;
  blk.staged = blk.u_full + kWgMaxUStages;
  blk.stored = blk.staged + 1;
  blk.layout = fused_wg_layout(Transform::n, Transform::m, g.channels, a.K, kTiles, layout, a.u_stages, WgStaging::by_outputs,
                               a.tc_input != 0);
  blk.origins = reinterpret_cast<TileOrigin*>(shared + kWgBarriers * 16);
  blk.v = reinterpret_cast<T*>(shared + kWgHeaderBytes);
  blk.u = blk.v + kWgVSlots * blk.layout.v_slot;
  blk.staging = blk.u + blk.layout.u_stages * blk.layout.u_stage;
  blk.group_size = a.group_tiles > 0 && a.group_tiles < kTiles ? a.group_tiles : kTiles;
  blk.groups = (g.tiles + blk.group_size - 1) / blk.group_size;
  blk.tc_copied = reinterpret_cast<WgBarrier*>(blk.staging + (blk.layout.staging_in_slot ? 0 : blk.layout.staging));
  {
    const std::uint32_t after = wg_shared_address(blk.tc_copied + 4);
    blk.tc_slots = reinterpret_cast<char*>(blk.tc_copied + 4) + ((1024 - (after & 1023)) & 1023);
  }
  const int thread = static_cast<int>(threadIdx.x);
  if (thread == 0) {
    for (int s = 0; s < kWgVSlots; ++s) wg_barrier_init(&blk.v_full[s], kWgProducerThreads), wg_barrier_init(&blk.v_empty[s], kWgConsumerThreads);
    for (int s = 0; s < blk.layout.u_stages; ++s) wg_barrier_init(&blk.u_full[s], 1);
    wg_barrier_init(blk.staged, kWgConsumerThreads);
    wg_barrier_init(blk.stored, kWgProducerThreads);
    if (blk.layout.tc_input)
      for (int s = 0; s < 4; ++s) wg_barrier_init(&blk.tc_copied[s], 1);
  }
  __syncthreads();
  if constexpr (kWgTcKernel<Transform, T, layout, kTiles>)
    if (blk.layout.tc_input) return fused_wg_roles<Transform, T, layout, kTiles, WgTcPlan>(a, x_map, blk, thread);
  fused_wg_roles<Transform, T, layout, kTiles, WgFpPlan>(a, x_map, blk, thread);
}

#endif  // NOVA_FUSED_WGMMA || NOVA_KERNEL_EMULATION

// What a generated kernel calls: the kernel where wgmma exists, nothing elsewhere (never launched).
template <class Transform, typename T, Layout layout, int kTiles>
__device__ void fused_wg_conv_body(const FusedConvArgs& a, const WgTensorMap& x_map) {
#if defined(NOVA_FUSED_WGMMA) || defined(NOVA_KERNEL_EMULATION)
  fused_wg_conv_tiles<Transform, T, layout, kTiles>(a, x_map);
#else
  (void)a, (void)x_map;
  fused_kernel_absent();
#endif
}

// Reorders a transformed filter U [nn][K][C] into the wgmma filter layout with K and C padded
// (zeros); one element of the padded filter per thread.
template <typename T>
__global__ void __launch_bounds__(kBlockThreads) fused_wg_filter_order(const T* __restrict__ U, T* __restrict__ F, int n,
                                                                        int K, int C) {
  const int Kp = fused_wg_padded_outputs(K), Cp = fused_padded_channels(C);
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<long long>(n) * n * Kp * Cp) return;
  const int c = static_cast<int>(i % Cp), k = static_cast<int>(i / Cp % Kp), xi = static_cast<int>(i / Cp / Kp);
  F[fused_wg_filter_index(n, xi, k, c, C)] =
      k < K && c < C ? U[(static_cast<long long>(xi) * K + k) * C + c] : storage_zero<T>();
}


// ---------------------------------------------------------------------------------------------
// Host side.

// The tensor map of an NHWC fp16 or bf16 image of 64 channels for the tensor-core input transform, into `x_map`:
// a box of one tile's 6 x 6 patch (each pixel's 64 channels one 128-byte row, swizzled), zeros outside the
// image. False where there is none to make (no tensor maps in this build or driver): the launch then
// transforms on the FP pipes.
#ifdef NOVA_KERNEL_EMULATION
template <typename T>
bool fused_wg_x_map(WgTensorMap& x_map, const T* x, const TileGrid& g) {
  const long long pixel = kWgTcChannels * 2;
  const int box_width = fused_wg_tc_copy_tiles(g) == 2 ? kWgTcPairWidth : kWgTcSide;
  const WgEmulatedMap map{x, {kWgTcChannels, g.width, g.height, g.images}, {2, pixel, pixel * g.width, pixel * g.width * g.height},
                          {kWgTcChannels, box_width, kWgTcSide, 1}, 2};
  static_assert(sizeof map <= sizeof x_map.bytes);
  std::memcpy(x_map.bytes, &map, sizeof map);
  return sizeof(T) == 2;
}
#elif NOVA_HOST_LAUNCHERS
template <typename T>
bool fused_wg_x_map([[maybe_unused]] WgTensorMap& x_map, [[maybe_unused]] const T* x, [[maybe_unused]] const TileGrid& g) {
#if defined(__CUDACC__) && !defined(__HIP__)
  // The driver's encoder, found once through the runtime (no link to the driver library).
  static const auto encode = [] {
    PFN_cuTensorMapEncodeTiled_v12000 found = nullptr;
    cudaDriverEntryPointQueryResult result{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&found), 12000, cudaEnableDefault,
                                         &result) != cudaSuccess ||
        result != cudaDriverEntryPointSuccess)
      found = nullptr;
    return found;
  }();
  static_assert(sizeof(CUtensorMap) == sizeof(WgTensorMap) && alignof(CUtensorMap) <= alignof(WgTensorMap), "a CUtensorMap fits");
  if (!encode || sizeof(T) != 2) return false;
  const cuuint64_t pixel = kWgTcChannels * 2;
  const cuuint64_t dims[4] = {kWgTcChannels, static_cast<cuuint64_t>(g.width), static_cast<cuuint64_t>(g.height),
                              static_cast<cuuint64_t>(g.images)};
  const cuuint64_t strides[3] = {pixel, pixel * static_cast<cuuint64_t>(g.width),
                                 pixel * static_cast<cuuint64_t>(g.width) * static_cast<cuuint64_t>(g.height)};
  const cuuint32_t box_width = fused_wg_tc_copy_tiles(g) == 2 ? kWgTcPairWidth : kWgTcSide;
  const cuuint32_t box[4] = {kWgTcChannels, box_width, kWgTcSide, 1}, unit[4] = {1, 1, 1, 1};
  const auto type = storage_of<T>() == Storage::f16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  return encode(reinterpret_cast<CUtensorMap*>(x_map.bytes), type, 4, const_cast<T*>(x), dims, strides, box,
                unit, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
#else
  return false;  // HIP: no wgmma kernel runs
#endif
}
#endif

#if NOVA_HOST_LAUNCHERS
template <typename T>
hipError_t launch_fused_wg_filter_order(const T* U, T* F, int n, int K, int C, hipStream_t stream) {
  const long long count = fused_wg_filter_elements(n, K, C);
  if (count == 0) return hipSuccess;
  fused_wg_filter_order<T><<<filter_blocks(count), kBlockThreads, 0, stream>>>(U, F, n, K, C);
  return hipGetLastError();
}

// Launches the wgmma kernel for a shape fused_uses_wgmma accepted (U in fused_wg_filter_index order):
// `variants` are the transform's kernels of this storage type and `layout` (16 tiles a group, 8; which one:
// fused_wg_wave_tiles),
// with as many U stages as the shared memory holds; the input transform on the tensor cores where
// fused_wg_tc_input says and the driver makes the tensor map (then *tc_input, where given, is true), its tile
// groups balanced over the grid's waves (fused_wg_group_size).
template <typename T>
hipError_t launch_fused_wg_conv(const void* const* variants, const TileSize& t, Layout layout, const T* x, const T* U,
                                T* y, const float* bias, int relu, const TileGrid& g, int K, const FusedDevice& device,
                                hipStream_t stream, bool* tc_input = nullptr) {
  const int tiles = fused_wg_wave_tiles(fused_wg_tiles(t.n, t.m, g.channels, K, device.shared_limit), g.tiles, device.multiprocessors);
  if (tiles == 0) return hipErrorInvalidValue;
  FusedConvArgs args{x, U, y, bias, relu, K, FusedLaunch{}, 0, g};
  WgTensorMap x_map;
  args.tc_input = fused_wg_tc_input(t.n, g.channels, K, layout, tiles, storage_of<T>(), device.kronecker_terms, g.tiles,
                                    device.multiprocessors) &&
                  fused_wg_layout(t.n, t.m, g.channels, K, tiles, layout, WgTcPlan::u_stages, WgStaging::by_outputs, true).bytes <=
                      device.shared_limit &&
                  fused_wg_x_map(x_map, x, g);
  if (args.tc_input) args.tc_input = static_cast<std::int16_t>(fused_wg_tc_copy_tiles(g));
  args.group_tiles = fused_wg_group_size(tiles, g.tiles, device.multiprocessors, args.tc_input != 0);
  const int blocks = fused_wg_blocks(g.tiles, args.group_tiles, device.multiprocessors);
  args.u_stages = static_cast<std::int16_t>(
      fused_wg_launch_u_stages(t.n, t.m, g.channels, K, tiles, layout, device.shared_limit, g.tiles, blocks, args.tc_input != 0));
  const auto shared = static_cast<int>(
      fused_wg_layout(t.n, t.m, g.channels, K, tiles, layout, args.u_stages, WgStaging::by_outputs, args.tc_input != 0).bytes);
  if (tc_input) *tc_input = args.tc_input != 0;
  return launch_kernel(variants[fused_wgmma_variant(tiles)], dim3(blocks), dim3(kWgThreads), shared, stream, args, x_map);
}

#endif

}  // namespace nova::kernels
