// The fused Winograd convolution for NHWC fp16 images: one kernel reads x and writes y, so V and M
// never cross device memory (the 3-pass floors in docs/performance.md show that only this brings
// the small-channel layers near cuDNN). Written once for every transform; each generated
// <name>_kernels.hip whose tile fits (n <= 6) binds it to its transform.
//
// A block of 8 warps takes kTiles = 16 * kTileGroups tiles and every channel (fused_conv_tiles):
//   1. fused_input_transform: its threads write V = B^T d B of every (channel, tile) into shared
//      memory as fp16 (the storage precision of the 3-pass pipeline). A thread takes a channel
//      pair of one tile: one 4-byte load per patch element (a warp reads whole NHWC pixels), two
//      transforms in fp32, one 4-byte store per position.
//   2. fused_tile_group: a warp takes kKBlocks blocks of 8 output channels and, in turn, each tile
//      group of 16 tiles: for every Winograd position xi it computes the 16 (tile) x 8 (channel)
//      blocks of M_xi = V_xi U_xi over all C (fused_mma: tensor-core mma, fp16 in, fp32
//      accumulate; V from shared memory, stored with an XOR swizzle instead of padding; U from the
//      cached filter through the warp's own shared buffer, two steps ahead, UStream) and folds it
//      into y = A^T M A at once, a domain row at a time, so only the m*m outputs and one row of M
//      stay in registers. Every M element a thread holds has the same (tile, k) for every xi,
//      which is what makes the output transform thread-local.
//   3. the epilogue, at the end of fused_tile_group, adds the bias, applies ReLU and stores each
//      tile's pixels: as channel pairs with one K block a warp (fused_store_pairs), as 16-byte
//      channel runs restaged through the U buffer with two (fused_store_restaged).
// Each step is force-inlined into the kernel, so that its arrays stay in registers; the split
// leaves the sm_90 machine code as the single function compiled (byte for byte).
// Warps never wait for each other after phase 1. Where two blocks fit in an SM's shared memory
// (small C), one block's loads overlap the other's matrix products and a warp takes one K block;
// otherwise a block has the SM's registers to itself and a warp takes two K blocks, so that each
// V fragment it reads from shared memory feeds two products (the matrix loop is bound by the bytes
// shared memory moves).
//
// Matrix cores: mma.sync m16n8k16 on NVIDIA (sm_80 and later). Every other target (AMD through
// HIP, and the CPU emulation of tests/codegen) runs the same loops with a portable per-thread
// product over the same fragment ownership; it is correct but slow (no MFMA path yet). Warps are
// fixed 32-thread slices of the block, not hardware waves, so wave64 needs no change.
#pragma once

#include "nova/kernels/transform_kernels.hpp"

#include <cstring>
#include <type_traits>

namespace nova::kernels {

inline constexpr int kFusedGroupTiles = 16;   // tiles of a tile group: the mma's M
inline constexpr int kFusedBlockK = 8;        // output channels of a warp's block: the mma's N
inline constexpr int kFusedChannelStep = 16;  // channels per mma: its reduction depth
inline constexpr int kFusedThreads = 256;    // 8 warps a block
inline constexpr int kFusedMaxTileSide = 6;   // n of the largest tile whose registers fit

// The kernels' launch bounds: two blocks an SM with one K block a warp (128 registers a thread), one
// with two (255).
NOVA_HD constexpr int fused_blocks_per_sm(int k_blocks) { return k_blocks == 1 ? 2 : 1; }
NOVA_HD constexpr int fused_block_tiles(int tile_groups) { return kFusedGroupTiles * tile_groups; }

// Where channel c of tile t lies in the shared V of one position (C halves per tile, unpadded): its
// 16-byte chunk is XOR-swizzled by the tile, so that ldmatrix's 8 rows (8 consecutive tiles) at one
// chunk fall in 8 different bank groups. The swizzle spans w chunks, the largest power of two up to
// 8 that divides C / 8, so a chunk stays inside its tile's row.
NOVA_HD constexpr int fused_v_swizzle(int t, int C) {
  const int chunks = C / 8, w = (chunks & -chunks) < 8 ? chunks & -chunks : 8;
  return t * w / 8 & (w - 1);
}
NOVA_HD constexpr int fused_v_offset(int t, int c, int C) { return t * C + ((c / 8) ^ fused_v_swizzle(t, C)) * 8 + c % 8; }

inline constexpr int kFusedUSlots = 3;  // U steps a warp holds: the one it multiplies and two in flight

// Halves of one warp's U buffer: kFusedUSlots steps of n blocks of each of its K blocks.
NOVA_HD constexpr int fused_u_buffer_halves(int n, int k_blocks) {
  return kFusedUSlots * n * k_blocks * kFusedBlockK * kFusedChannelStep;
}

// Shared memory of one block: V for every xi, tile and channel, each warp's U buffer, then the
// tiles' origins.
constexpr long long fused_shared_bytes(int n, int C, int tile_groups, int k_blocks) {
  const long long tiles = fused_block_tiles(tile_groups);
  return (static_cast<long long>(n) * n * tiles * C + kFusedThreads / 32 * fused_u_buffer_halves(n, k_blocks)) * 2 +
         tiles * static_cast<long long>(sizeof(TileOrigin));
}

struct FusedLaunch {
  int tile_groups = 0, k_blocks = 0;  // 0: the shape cannot run fused
};

// Tile groups per block (4, 2 or 1) and K blocks per warp for a shape: the most tile groups with
// which two blocks share an SM's `shared_limit` bytes (one K block a warp), else one tile group in
// a block alone (two K blocks a warp; two tile groups would need twice one's bytes); none for a
// tile larger than kFusedMaxTileSide, C or K not a multiple of 16, or U of 2^31 elements or more.
constexpr FusedLaunch fused_launch(int n, int C, int K, long long shared_limit) {
  if (n > kFusedMaxTileSide || C < 1 || K < 1 || C % kFusedChannelStep != 0 || K % 16 != 0 ||
      static_cast<long long>(n) * n * K * C > INT_MAX)  // U's 32-bit offsets
    return {};
  for (int groups = 4; groups >= 1; groups /= 2)
    if (2 * fused_shared_bytes(n, C, groups, 1) <= shared_limit) return {groups, 1};
  if (fused_shared_bytes(n, C, 1, 2) <= shared_limit) return {1, 2};
  return {};
}

// Where U_xi[k][c] lies in the fused filter layout: 8 (k) x 16 (c) blocks (xi, k / 8, c / 16), each
// the 32 lanes' mma B fragments in lane order, 4 halves per lane: lane g * 4 + q holds U[g][2q],
// U[g][2q + 1], U[g][2q + 8], U[g][2q + 9] (PTX ISA, mma.m16n8k16 B fragment, B = U^T).
NOVA_HD constexpr int fragment_offset(int k, int c) { return ((k % 8) * 4 + (c % 8) / 2) * 4 + (c % 16) / 8 * 2 + c % 2; }

NOVA_HD constexpr long long fused_filter_index(int xi, int k, int c, int K, int C) {
  const long long block = (static_cast<long long>(xi) * (K / kFusedBlockK) + k / kFusedBlockK) * (C / kFusedChannelStep) +
                          c / kFusedChannelStep;
  return block * (kFusedBlockK * kFusedChannelStep) + fragment_offset(k, c);
}

struct FusedConvArgs {
  const __half* x;     // N x H x W x C
  const __half* U;     // transformed filter in fused_filter_index order
  __half* y;           // N x Hout x Wout x K
  const float* bias;   // K values or nullptr
  int relu;
  int K;
  TileGrid grid;       // the input's tiling (channels = C)
};

// ---------------------------------------------------------------------------------------------
// Device side.

#ifdef NOVA_KERNEL_EMULATION
inline char* fused_shared_memory() { return nova::emulation::dynamic_shared.data(); }

struct HalfPair {
  __half a, b;
};
inline HalfPair load_pair(const __half* x, int at, bool inside) {
  const __half zero = static_cast<__half>(0.0f);
  return inside ? HalfPair{x[at], x[at + 1]} : HalfPair{zero, zero};
}
inline void unpack_pair(HalfPair p, float& a, float& b) { a = to_float(p.a), b = to_float(p.b); }
inline void store_pair(__half* at, float a, float b) { store(at, a), store(at + 1, b); }
inline void copy_run(__half* to, const __half* from) { std::memcpy(to, from, 16); }
// Every emulated thread runs to its next barrier before any continues, so a warp barrier is a block
// barrier here; threads of other warps may be at a different count, which matters only for data
// shared across warps without a block barrier (the kernel shares none).
inline void fused_warp_sync() { __syncthreads(); }
#else
__device__ inline char* fused_shared_memory() {
  extern __shared__ __align__(16) char fused_shared[];
  return fused_shared;
}

// Channels c and c + 1 (c even) of one pixel: one 4-byte access.
using HalfPair = __half2;
__device__ inline HalfPair load_pair(const __half* __restrict__ x, int at, bool inside) {
  return inside ? *reinterpret_cast<const __half2*>(x + at) : __float2half2_rn(0.0f);
}
__device__ inline void unpack_pair(HalfPair p, float& a, float& b) {
  const float2 f = __half22float2(p);
  a = f.x, b = f.y;
}
__device__ inline void store_pair(__half* at, float a, float b) {
  *reinterpret_cast<__half2*>(at) = __floats2half2_rn(a, b);
}
// Eight channels (16 bytes, aligned) in one access.
__device__ inline void copy_run(__half* to, const __half* from) {
  *reinterpret_cast<uint4*>(to) = *reinterpret_cast<const uint4*>(from);
}
// A barrier of one 32-thread warp (a slice of the block, which on wave64 shares its wave with
// another), ordering its shared-memory accesses.
__device__ inline void fused_warp_sync() {
#if defined(__HIP__) || defined(__HIPCC__)
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
#else
  __syncwarp();
#endif
}
#endif

// Matrix cores: mma.sync from sm_80 on. A U fragment is what one lane needs of a U block: on the
// mma path its 4 halves (the B fragment), loaded ahead into registers; on the portable path the
// block itself, from which the per-thread product reads what it needs.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define NOVA_FUSED_MMA 1
using UFragment = uint2;
#else
using UFragment = const __half*;
#endif

// acc[b] += the warp's 16 (tile) x 16 (channel) block of V_xi times the 16 x 8 (k) block of U_xi^T
// of its K block b. v: shared V of position xi; the block starts at tile t0, channel c0, and
// `lane_at` is where this lane's ldmatrix row lies (fused_v_offset of tile t0 + lane % 16, channel
// c0 + 8 (lane / 16)); u[b]: this lane's fragment of K block b's U block. acc[b][e] is (tile
// lane / 4 + 8 (e / 2), k 2 (lane % 4) + e % 2), the mma's C fragment.
template <int kKBlocks>
__device__ inline void fused_mma(float (&acc)[kKBlocks][4], const __half* v, int lane_at, int t0, int c0, int C,
                                 const UFragment (&u)[kKBlocks], int lane) {
#ifdef NOVA_FUSED_MMA
  (void)t0, (void)c0, (void)C, (void)lane;
  unsigned a0, a1, a2, a3;  // ldmatrix .x4: lanes 0-15 address tiles 0-15 at channel c0, lanes 16-31 at c0 + 8
  const auto address = static_cast<unsigned>(__cvta_generic_to_shared(v + lane_at));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
               : "r"(address));
#pragma unroll
  for (int b = 0; b < kKBlocks; ++b)
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(acc[b][0]), "+f"(acc[b][1]), "+f"(acc[b][2]), "+f"(acc[b][3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(u[b].x), "r"(u[b].y));
#else
  (void)lane_at;
  const int g = lane / 4, q = lane % 4;
  for (int b = 0; b < kKBlocks; ++b)
    for (int c = 0; c < kFusedChannelStep; ++c) {
      const float v0 = to_float(v[fused_v_offset(t0 + g, c0 + c, C)]), v1 = to_float(v[fused_v_offset(t0 + g + 8, c0 + c, C)]);
      const float u0 = to_float(u[b][fragment_offset(2 * q, c)]), u1 = to_float(u[b][fragment_offset(2 * q + 1, c)]);
      acc[b][0] += v0 * u0, acc[b][1] += v0 * u1, acc[b][2] += v1 * u0, acc[b][3] += v1 * u1;
    }
#endif
}

// The U blocks a warp multiplies with, one step (domain row i, channel step) after another: on the
// mma path each step's n blocks of every K block of the warp are copied into the warp's shared
// buffer two steps ahead (cp.async), so that L2's latency overlaps the products of the steps
// before; elsewhere they are read from the filter in place. Two steps ahead because one left the
// loop waiting on U, and loads into registers further ahead do not fit beside the accumulators
// (docs/performance.md, "Fused v3").
template <int n, int kKBlocks>
struct UStream {
  static constexpr int kHalves = kFusedBlockK * kFusedChannelStep;  // one 8 x 16 block
  static constexpr int kBlocks = n * kKBlocks;                      // blocks of one step
  static constexpr int kChunks = kBlocks * kHalves / 8;             // 16-byte copies of one step
  const __half* first;  // U of position 0, this warp's first K block, channel step 0
  int position;         // halves from one position to the next (fused_launch keeps U below 2^31)
  int k_block;          // halves from one K block to the next
  int steps;            // channel steps per position
  __half* buffer;       // this warp's fused_u_buffer_halves(n, kKBlocks): kFusedUSlots steps
  int lane;

  // Step `step` of domain row i (a step past the row's last continues on the next rows) starts on
  // its way into `slot`. Lane l copies chunks l + 32 q: bytes (l % 16) * 16 of block l / 16 + 2 q,
  // block b * n + j being position j of K block b.
  __device__ void fetch(int i, int step, int slot) const {
#ifdef NOVA_FUSED_MMA
    for (; step >= steps; step -= steps) ++i;
    const __half* from = first + i * n * position + step * kHalves + lane % 16 * 8;
    const auto to = static_cast<unsigned>(__cvta_generic_to_shared(buffer + slot * kBlocks * kHalves + lane * 8));
#pragma unroll
    for (int q = 0; q * 32 < kChunks; ++q) {
      const int block = lane / 16 + 2 * q;
      if (kChunks % 32 == 0 || block < kBlocks)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to + q * 512),
                     "l"(from + block % n * position + block / n * k_block));
    }
    asm volatile("cp.async.commit_group;\n" ::);
#else
    (void)i, (void)step, (void)slot;
#endif
  }

  // Waits for the oldest step in flight; `later` says whether another was fetched after it. The
  // warp barrier also means every lane is done with the slot the step before used.
  __device__ void wait(bool later) const {
#ifdef NOVA_FUSED_MMA
    if (later) asm volatile("cp.async.wait_group 1;\n" ::);
    else asm volatile("cp.async.wait_group 0;\n" ::);
    fused_warp_sync();
#else
    (void)later;
#endif
  }

  // This lane's fragment of block (i, j) of K block b at channel step `step`, fetched into `slot`.
  __device__ UFragment fragment(int i, int j, int step, int b, int slot) const {
#ifdef NOVA_FUSED_MMA
    (void)i, (void)step;
    return *reinterpret_cast<const uint2*>(buffer + (slot * kBlocks + b * n + j) * kHalves + lane * 4);
#else
    (void)slot;
    return first + (i * n + j) * position + b * k_block + step * kHalves;
#endif
  }
};

// The block's shared memory and tiles, as every phase sees them.
struct FusedBlock {
  __half* vs;           // [nn][plane]: V of every position, fused_v_offset within a plane
  int plane;            // halves of one position's V: tiles x C
  __half* u_buffers;    // [warp][fused_u_buffer_halves]
  TileOrigin* origins;  // of the block's tiles
  int tiles;            // the block's tiles (fewer in the grid's last block)
};

// Phase 1: V = B^T d B of every (channel pair, tile) of the block into its shared memory;
// consecutive threads take consecutive pairs (`pairs` a tile). With two K blocks a warp the kernel
// has registers to spare here: a thread loads the patches of kItemsAhead items before it
// transforms the first, so that their loads' latencies overlap.
template <class Transform, int kTiles, int kKBlocks>
__device__ __forceinline__ void fused_input_transform(const FusedConvArgs& a, const FusedBlock& blk, int pairs) {
  constexpr int n = Transform::n, nn = n * n;
  constexpr int kItemsAhead = kKBlocks == 1 ? 1 : 2;
  const TileGrid& g = a.grid;
  const int threads = static_cast<int>(blockDim.x), C = g.channels;
  const int items = pairs * kTiles;
#pragma unroll 1
  for (int first = static_cast<int>(threadIdx.x); first < items; first += kItemsAhead * threads) {
    HalfPair raw[kItemsAhead][nn];
#pragma unroll
    for (int ahead = 0; ahead < kItemsAhead; ++ahead) {
      const int item = first + ahead * threads, t = item / pairs;
      const bool valid = item < items && t < blk.tiles;
      walk_patch<n, Layout::nhwc>(g, blk.origins[valid ? t : 0], 2 * (item % pairs), valid,
                                  [&](int e, bool inside, int at) { raw[ahead][e] = load_pair(a.x, at, inside); });
    }
#pragma unroll
    for (int ahead = 0; ahead < kItemsAhead; ++ahead) {
      const int item = first + ahead * threads;
      if (item >= items) break;
      float d0[nn], d1[nn], v0[nn], v1[nn];
#pragma unroll
      for (int e = 0; e < nn; ++e) unpack_pair(raw[ahead][e], d0[e], d1[e]);
      Transform::input_2d(d0, v0);
      Transform::input_2d(d1, v1);
      __half* at = blk.vs + fused_v_offset(item / pairs, 2 * (item % pairs), C);
#pragma unroll
      for (int xi = 0; xi < nn; ++xi) store_pair(at + xi * blk.plane, v0[xi], v1[xi]);
    }
  }
}

// The bias of the two output channels this lane holds in K block kb + b.
__device__ __forceinline__ void fused_bias_pair(const FusedConvArgs& a, int kb, int b, int lane, float& b0, float& b1) {
  const int k = (kb + b) * kFusedBlockK + lane % 4 * 2;
  b0 = a.bias ? a.bias[k] : 0.0f, b1 = a.bias ? a.bias[k + 1] : 0.0f;
}

// Phase 3 with one K block a warp (two blocks an SM, whose loops overlap the stores): bias, ReLU,
// and each lane stores its channel pairs directly, with one copy of the store loop per (ReLU,
// clipped tile). Restaging measured slower here (VGG-16 64@224: 469 -> 486 us, docs/performance.md).
template <class Transform>
__device__ __forceinline__ void fused_store_pairs(const FusedConvArgs& a, const FusedBlock& blk,
                                                  const float (&out)[1][Transform::m * Transform::m][4], int t0,
                                                  int kb, int lane) {
  constexpr int m = Transform::m;
  const TileGrid& g = a.grid;
  float b0, b1;
  fused_bias_pair(a, kb, 0, lane, b0, b1);
  const int k = kb * kFusedBlockK + lane % 4 * 2;
  const auto emit = [&](int h, const TileOrigin& o, auto relu, auto clipped) {
    const PatchWalk walk = patch_walk<Layout::nhwc>(o.image, k, o.row, o.col, a.K, g.out_height, g.out_width);
#pragma unroll
    for (int p = 0; p < m * m; ++p) {
      const int r = p / m, s = p % m;
      if (decltype(clipped)::value && (o.row + r >= g.out_height || o.col + s >= g.out_width)) continue;
      float first = out[0][p][2 * h] + b0, second = out[0][p][2 * h + 1] + b1;
      if (decltype(relu)::value) first = fmaxf(first, 0.0f), second = fmaxf(second, 0.0f);
      store_pair(a.y + walk.at(r, s), first, second);
    }
  };
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int t = t0 + lane / 4 + 8 * h;
    if (t >= blk.tiles) continue;
    const TileOrigin o = blk.origins[t];
    const bool clipped = o.row + m > g.out_height || o.col + m > g.out_width;
    using Yes = std::true_type;
    using No = std::false_type;
    if (a.relu) clipped ? emit(h, o, Yes{}, Yes{}) : emit(h, o, Yes{}, No{});
    else clipped ? emit(h, o, No{}, Yes{}) : emit(h, o, No{}, No{});
  }
}

// Phase 3 with two K blocks a warp (one block an SM): bias and ReLU, then the warp restages its
// outputs through its U buffer (free once the loop is done) as [tile][pixel][its 16 channels], so
// that each lane stores whole 16-byte channel runs of a pixel: a quarter of the store
// instructions, and sectors written whole (VGG-16 128@112: 363 -> 320 us, docs/performance.md). A
// tile's row is padded by 16 bytes, which keeps the pair writes free of bank conflicts.
template <class Transform, int kKBlocks>
__device__ __forceinline__ void fused_store_restaged(const FusedConvArgs& a, const FusedBlock& blk,
                                                     const float (&out)[kKBlocks][Transform::m * Transform::m][4],
                                                     __half* staging, int t0, int kb, int lane) {
  constexpr int m = Transform::m, n = Transform::n;
  const TileGrid& g = a.grid;
  constexpr int kRun = kKBlocks * kFusedBlockK, kTileStride = m * m * kRun + 8;  // halves
  static_assert(kFusedGroupTiles * kTileStride <= kFusedUSlots * n * kKBlocks * kFusedBlockK * kFusedChannelStep,
                "the restaged outputs must fit in the warp's U buffer (codegen fuses only m * m < 3 n)");
  fused_warp_sync();  // every lane has read its last U fragments
#pragma unroll
  for (int b = 0; b < kKBlocks; ++b) {
    float b0, b1;
    fused_bias_pair(a, kb, b, lane, b0, b1);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      __half* at = staging + (lane / 4 + 8 * h) * kTileStride + b * kFusedBlockK + lane % 4 * 2;
#pragma unroll
      for (int p = 0; p < m * m; ++p) {
        float first = out[b][p][2 * h] + b0, second = out[b][p][2 * h + 1] + b1;
        if (a.relu) first = fmaxf(first, 0.0f), second = fmaxf(second, 0.0f);
        store_pair(at + p * kRun, first, second);
      }
    }
  }
  fused_warp_sync();
  constexpr int kRuns = kFusedGroupTiles * m * m * kKBlocks;
#pragma unroll 1
  for (int c = lane; c < kRuns; c += 32) {
    const int t = c / (m * m * kKBlocks), p = c / kKBlocks % (m * m), b = c % kKBlocks;
    if (t0 + t >= blk.tiles) continue;
    const TileOrigin o = blk.origins[t0 + t];
    const int row = o.row + p / m, col = o.col + p % m;
    if (row >= g.out_height || col >= g.out_width) continue;
    copy_run(a.y + ((o.image * g.out_height + row) * g.out_width + col) * a.K + (kb + b) * kFusedBlockK,
             staging + t * kTileStride + p * kRun + b * kFusedBlockK);
  }
  fused_warp_sync();  // the next tile group's U copies overwrite the buffer
}

// Phases 2 and 3 for one tile group of one warp: y = A^T (V U) A of tiles t0 .. t0 + 15 and the
// warp's K blocks from kb into `out` (out[b][pixel][e]: the mma's C fragment layout), position by
// position, then the epilogue. Each domain row i of M is accumulated over all channels, then folded
// into the outputs at once, so only the m x m outputs and one row of M stay in registers. `out` is
// declared here, beside the rows of M, not by the caller: there ptxas schedules the one-K-block
// kernels differently (the same instruction count and registers, but a different order).
template <class Transform, int kKBlocks>
__device__ __forceinline__ void fused_tile_group(const FusedConvArgs& a, const FusedBlock& blk,
                                                 const UStream<Transform::n, kKBlocks>& u, int C, int t0, int kb,
                                                 int lane) {
  constexpr int m = Transform::m, n = Transform::n;
  const int steps = C / kFusedChannelStep;
  const int lane_tile = t0 + lane % 16, lane_swizzle = fused_v_swizzle(lane_tile, C);  // this lane's ldmatrix row
  float out[kKBlocks][m * m][4] = {};
  int slot = 0;  // of the step being multiplied; the next two are in flight
  u.fetch(0, 0, 0);
  u.fetch(0, 1, 1);
#pragma unroll
  for (int i = 0; i < n; ++i) {
    float mrow[n][kKBlocks][4] = {};
#pragma unroll 1
    for (int step = 0; step < steps; ++step) {
      const int f = i * steps + step, total = n * steps;
      u.wait(f + 1 < total);
      if (f + 2 < total) u.fetch(i, step + 2, slot == 0 ? 2 : slot - 1);
      const int lane_at = lane_tile * C + ((2 * step + lane / 16) ^ lane_swizzle) * 8;
#pragma unroll
      for (int j = 0; j < n; ++j) {
        UFragment frags[kKBlocks];
#pragma unroll
        for (int b = 0; b < kKBlocks; ++b) frags[b] = u.fragment(i, j, step, b, slot);
        fused_mma(mrow[j], blk.vs + (i * n + j) * blk.plane, lane_at, t0, step * kFusedChannelStep, C, frags, lane);
      }
      slot = slot == kFusedUSlots - 1 ? 0 : slot + 1;
    }
    // Row i of M through A^T along the row, then scaled by column i of A^T into every output row.
    float column[m], unit[n];
#pragma unroll
    for (int j = 0; j < n; ++j) unit[j] = j == i ? 1.0f : 0.0f;
    Transform::output_1d(unit, 1, column, 1);
#pragma unroll
    for (int b = 0; b < kKBlocks; ++b)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        float z[m];
        Transform::output_1d(&mrow[0][b][e], kKBlocks * 4, z, 1);
#pragma unroll
        for (int r = 0; r < m; ++r)
#pragma unroll
          for (int s = 0; s < m; ++s) out[b][r * m + s][e] += column[r] * z[s];
      }
  }
  if constexpr (kKBlocks == 1) fused_store_pairs<Transform>(a, blk, out, t0, kb, lane);
  else fused_store_restaged<Transform, kKBlocks>(a, blk, out, u.buffer, t0, kb, lane);
}

// The kernel body: lay out shared memory, phase 1 for the block, then phases 2 and 3 for each of a
// warp's K blocks and each tile group.
template <class Transform, int kTileGroups, int kKBlocks>
__device__ void fused_conv_tiles(const FusedConvArgs& a) {
  constexpr int m = Transform::m, n = Transform::n, nn = n * n;
  constexpr int kTiles = fused_block_tiles(kTileGroups);
  static_assert(n <= kFusedMaxTileSide, "the output accumulators of a larger tile do not fit in registers");
  const int threads = static_cast<int>(blockDim.x), warps = threads / 32;
  const TileGrid& g = a.grid;
  // pairs: phase 1's channel pairs a tile, computed before the first barrier: computed after it
  // (in fused_input_transform), the one-K-block f4x3 kernels spill 76 to 172 bytes.
  const int C = g.channels, pairs = C / 2;
  FusedBlock blk;
  blk.vs = reinterpret_cast<__half*>(fused_shared_memory());
  blk.plane = kTiles * C;
  blk.u_buffers = blk.vs + static_cast<long long>(nn) * blk.plane;
  blk.origins = reinterpret_cast<TileOrigin*>(blk.u_buffers + warps * fused_u_buffer_halves(n, kKBlocks));
  const long long first_tile = static_cast<long long>(blockIdx.x) * kTiles;
  blk.tiles = g.tiles - first_tile < kTiles ? static_cast<int>(g.tiles - first_tile) : kTiles;
  for (int t = static_cast<int>(threadIdx.x); t < blk.tiles; t += threads) blk.origins[t] = tile_origin(g, first_tile + t, m);
  __syncthreads();

  fused_input_transform<Transform, kTiles, kKBlocks>(a, blk, pairs);
  __syncthreads();

  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int blocks_k = a.K / kFusedBlockK, steps = C / kFusedChannelStep;
  constexpr int kBlockHalves = kFusedBlockK * kFusedChannelStep;
#pragma unroll 1
  for (int kb = warp * kKBlocks; kb < blocks_k; kb += warps * kKBlocks) {  // fused_launch: K blocks come in pairs
    const UStream<n, kKBlocks> u{a.U + kb * steps * kBlockHalves, blocks_k * steps * kBlockHalves,
                                 steps * kBlockHalves, steps, blk.u_buffers + warp * fused_u_buffer_halves(n, kKBlocks),
                                 lane};
#pragma unroll 1
    for (int t0 = 0; t0 < blk.tiles; t0 += kFusedGroupTiles)
      fused_tile_group<Transform, kKBlocks>(a, blk, u, C, t0, kb, lane);
  }
}

// Reorders a transformed filter U [nn][K][C] into the fused layout; one element per thread.
template <typename T>
__global__ void __launch_bounds__(kBlockThreads) fused_filter_order(const T* __restrict__ U, T* __restrict__ F, int nn,
                                                                     int K, int C) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<long long>(nn) * K * C) return;
  const int c = static_cast<int>(i % C), k = static_cast<int>(i / C % K), xi = static_cast<int>(i / C / K);
  F[fused_filter_index(xi, k, c, K, C)] = U[i];
}

// ---------------------------------------------------------------------------------------------
// Host side.

#ifndef NOVA_KERNEL_EMULATION
inline hipError_t launch_fused_filter_order(const __half* U, __half* F, int nn, int K, int C, hipStream_t stream) {
  const long long count = static_cast<long long>(nn) * K * C;
  if (count == 0) return hipSuccess;
  fused_filter_order<__half><<<filter_blocks(count), kBlockThreads, 0, stream>>>(U, F, nn, K, C);
  return hipGetLastError();
}

// The launcher every generated file calls: `kernels` are its fused_conv_nhwc_f16 for (tile groups,
// K blocks) = (1, 1), (2, 1), (4, 1) and (1, 2).
template <class Transform>
hipError_t launch_fused_conv(void (*const kernels[4])(FusedConvArgs), const __half* x, const __half* U, __half* y,
                             const float* bias, int relu, int N, int C, int H, int W, int K, int pad,
                             int shared_limit, hipStream_t stream) {
  TileGrid g{};
  if (!make_tile_grid<Transform>(N, C, H, W, pad, g) ||
      static_cast<long long>(N) * K * g.out_height * g.out_width > INT_MAX)  // y's 32-bit offsets
    return hipErrorInvalidValue;
  const FusedLaunch launch = fused_launch(Transform::n, C, K, shared_limit);
  if (launch.tile_groups == 0) return hipErrorInvalidValue;
  if (g.tiles == 0) return hipSuccess;
  if (!x || !U || !y) return hipErrorInvalidValue;
  // Beyond 48 KB a kernel must opt in to its dynamic shared memory: once per kernel, up to the
  // limit of the first call's device.
  static const hipError_t opted_in = [&] {
    for (int slot = 0; slot < 4; ++slot)
      if (const hipError_t e = hipFuncSetAttribute(reinterpret_cast<const void*>(kernels[slot]),
                                                   hipFuncAttributeMaxDynamicSharedMemorySize, shared_limit);
          e != hipSuccess)
        return e;
    return hipSuccess;
  }();
  if (opted_in != hipSuccess) return opted_in;
  const int groups = launch.tile_groups, slot = launch.k_blocks == 2 ? 3 : groups == 4 ? 2 : groups - 1;
  const auto shared = static_cast<int>(fused_shared_bytes(Transform::n, C, groups, launch.k_blocks));
  const long long blocks = (g.tiles + fused_block_tiles(groups) - 1) / fused_block_tiles(groups);
  if (blocks > INT_MAX) return hipErrorInvalidValue;
  kernels[slot]<<<static_cast<unsigned>(blocks), kFusedThreads, shared, stream>>>(
      FusedConvArgs{x, U, y, bias, relu, K, g});
  return hipGetLastError();
}
#endif

}  // namespace nova::kernels
