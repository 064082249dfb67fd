// The fused Winograd convolution: one kernel reads x and writes y, NCHW or NHWC, so V and M never
// cross device memory (the 3-pass floors in docs/performance.md show that only this brings the
// small-channel layers near cuDNN). Written once for every transform and 16-bit storage type;
// each generated <name>_kernels.hip whose tile fits (n <= 6) binds it to its transform.
//
// Any C and K: the kernel sees C rounded up to a whole channel step (16) and K to a whole pair of
// K blocks (16). The padding exists only on chip and in the transformed filter (zero rows and
// columns, fused_filter_order): x is read and y written at their real sizes, so no copy of either
// is padded.
//
// A block of 8 warps takes kTiles = 16 * tile_groups tiles and every channel (fused_conv_tiles):
//   1. fused_input_transform: its threads write V = B^T d B of every (channel, tile) into shared
//      memory (the storage type of the 3-pass pipeline). A thread takes a channel pair of one
//      tile: from NHWC images consecutive threads take consecutive pairs of a tile (one 4-byte load
//      per patch element where C is even), from NCHW images consecutive tiles of a pair (each
//      channel from its own plane, so a warp reads along image rows: a patch row as aligned 8-byte
//      runs where the width allows, nchw_patch_runs, else a 2-byte load an element); two
//      transforms in fp32, one 4-byte store per position.
//   2. fused_accumulate: a warp takes kKBlocks blocks of 8 output channels and, in turn, each tile
//      group of 16 tiles: for every Winograd position xi it computes the 16 (tile) x 8 (channel)
//      blocks of M_xi = V_xi U_xi over the channels (fused_mma: tensor-core mma, 16-bit in, fp32
//      accumulate; V from shared memory, stored with an XOR swizzle instead of padding; U from the
//      cached filter through the warp's own shared buffer, two steps ahead, UStream) and folds it
//      into y = A^T M A at once, a domain row at a time, so only the m*m outputs and one row of M
//      stay in registers. Every M element a thread holds has the same (tile, k) for every xi,
//      which is what makes the output transform thread-local.
//   3. the epilogue adds the bias, applies ReLU and stores each tile's pixels. NHWC with K a
//      multiple of 8: with one K block a warp the block restages its 64 channels of each pixel
//      through the warps' U buffers and stores whole 128-byte runs (fused_store_block, where every
//      warp has as many K blocks as the others); with two K blocks a warp each warp restages its
//      16-byte channel runs through its own U buffer (fused_store_restaged). Otherwise channel pairs
//      (or single channels where K is odd) straight from the accumulators (fused_store_direct), and
//      NCHW planes restaged per warp (fused_store_planes; tile rows as aligned runs where the output
//      width allows, store_staged_tile_row).
// Where V of every channel does not fit the shared memory (C beyond ~130 for F(4,3) on Hopper) the
// block takes the channels in chunks (kChunked): a warp then owns one tile group and one K block
// for the whole kernel, its outputs stay in registers from chunk to chunk (the output transform
// is linear, so folding each chunk's partial M is exact), and the grid's y dimension splits K.
// On small grids the chunked kernel also runs split launches (fused_split_launch): 2, 4 or 8 warps
// share a K block, each folding every row_split-th domain row, and sum their outputs at the end.
// Each step is force-inlined into the kernel, so that its arrays stay in registers.
// Warps never wait for each other after phase 1 (unchunked). Where two blocks fit in an SM's
// shared memory (small C), one block's loads overlap the other's matrix products and a warp takes
// one K block; otherwise a block has the SM's registers to itself and a warp takes two K blocks,
// so that each V fragment it reads from shared memory feeds two products (the matrix loop is
// bound by the bytes shared memory moves).
//
// Matrix cores: mma.sync m16n8k16 on NVIDIA (sm_80 and later). Every other target (AMD through
// HIP, and the CPU emulation of tests/codegen) runs the same loops with a portable per-thread
// product over the same fragment ownership; it is correct but slow (no MFMA path yet). Warps are
// fixed 32-thread slices of the block, not hardware waves, so wave64 needs no change.
#pragma once

#include "nova/kernels/transform_kernels.hpp"
#if NOVA_HOST_LAUNCHERS
#include "nova/kernels/transform_launch.hpp"
#endif

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

namespace nova::kernels {

inline constexpr int kFusedGroupTiles = 16;   // tiles of a tile group: the mma's M
inline constexpr int kFusedBlockK = 8;        // output channels of a warp's block: the mma's N
inline constexpr int kFusedChannelStep = 16;  // channels per mma: its reduction depth
inline constexpr int kFusedThreads = 256;    // 8 warps a block
inline constexpr int kFusedWarps = kFusedThreads / 32;

// The kernels' launch bounds: two blocks an SM with one K block a warp (128 registers a thread), one
// with two K blocks (255) or with chunked channels (whose outputs stay live through phase 1).
NOVA_HD constexpr int fused_blocks_per_sm(int k_blocks, bool chunked) { return k_blocks == 1 && !chunked ? 2 : 1; }
// The second launch bound: blocks an SM on NVIDIA. On AMD, where HIP reads it as waves a SIMD, this
// kernel is the portable fallback (no mma.sync), whose products need more registers than a higher
// target leaves; it asks for 1 there, which every kernel meets.
NOVA_HD constexpr int fused_launch_min_blocks(int k_blocks, bool chunked) {
#ifdef __HIP_DEVICE_COMPILE__
  (void)k_blocks, (void)chunked;
  return 1;
#else
  return fused_blocks_per_sm(k_blocks, chunked);
#endif
}
NOVA_HD constexpr int fused_block_tiles(int tile_groups) { return kFusedGroupTiles * tile_groups; }

// C and K as the kernel sees them: whole channel steps, and whole pairs of K blocks (a warp with
// two K blocks takes them in pairs).
NOVA_HD constexpr int fused_padded_channels(int C) { return (C + kFusedChannelStep - 1) / kFusedChannelStep * kFusedChannelStep; }
NOVA_HD constexpr int fused_padded_outputs(int K) { return (K + 2 * kFusedBlockK - 1) / (2 * kFusedBlockK) * (2 * kFusedBlockK); }

// V in shared memory: for each tile group, channel step of the chunk and position xi, one block of
// 16 tiles x 16 channels (512 bytes), so that the step from one position to the next is a
// compile-time constant (the ldmatrix addresses and the input transform's stores of one step are
// one base and immediate offsets). In a block, the 16-byte halves of each tile's 16 channels sit in
// 32 slots: tiles 0-7 of a half fill one 128-byte line in some order (so ldmatrix's 8 rows meet 8
// different bank groups), the tile XOR a function of the half and the step, so that the 64 channels
// of one tile that an NHWC warp stores at once (4 steps, 2 halves) meet 8 different bank groups too
// (also a tile pair's 32 and a tile quartet's 16).
inline constexpr int kFusedVBlock = kFusedGroupTiles * kFusedChannelStep;  // halves of one block
NOVA_HD constexpr int fused_v_step_xor(int step) { return (step & 1) << 1 | (step >> 1 & 1); }
NOVA_HD constexpr int fused_v_slot(int t, int half, int step) {
  return t / 8 * 16 + half * 8 + ((t % 8) ^ (half << 2 | fused_v_step_xor(step)));
}
// Halves from the start of its block to tile t (0-15), channel c (0-15) of step `step`.
NOVA_HD constexpr int fused_v_block_offset(int t, int c, int step) { return fused_v_slot(t, c / 8, step) * 8 + c % 8; }
// Halves from the start of V to tile t, channel c (of the chunk) at position xi; `steps`: channel
// steps of the chunk.
NOVA_HD constexpr int fused_v_offset(int t, int c, int xi, int nn, int steps) {
  return ((t / kFusedGroupTiles * steps + c / kFusedChannelStep) * nn + xi) * kFusedVBlock +
         fused_v_block_offset(t % kFusedGroupTiles, c % kFusedChannelStep, c / kFusedChannelStep);
}
// Where a lane's ldmatrix row lies in the block of step `step`: tile lane % 16, channels 8 (lane / 16)
// on (ldmatrix .x4: lanes 0-15 address the first 8 channels of the 16 tiles, lanes 16-31 the
// next 8), as the slot of step 0 XOR the step's bits: a few instructions a step.
NOVA_HD constexpr int fused_v_lane_row(int lane, int step) {
  return (fused_v_slot(lane % 16, lane / 16, 0) ^ fused_v_step_xor(step)) * 8;
}

inline constexpr int kFusedUSlots = 3;  // U steps a warp holds: the one it multiplies and two in flight

// Halves of one warp's U buffer: kFusedUSlots steps of n blocks of each of its K blocks.
NOVA_HD constexpr int fused_u_buffer_halves(int n, int k_blocks) {
  return kFusedUSlots * n * k_blocks * kFusedBlockK * kFusedChannelStep;
}

// Shared memory of one block: V for every xi, tile and channel of a chunk (`width` channels), each
// warp's U buffer, then the tiles' origins.
constexpr long long fused_shared_bytes(int n, int width, int tile_groups, int k_blocks) {
  const long long tiles = fused_block_tiles(tile_groups);
  return (static_cast<long long>(n) * n * tiles * width + kFusedWarps * fused_u_buffer_halves(n, k_blocks)) * 2 +
         tiles * static_cast<long long>(sizeof(TileOrigin));
}

struct FusedLaunch {
  int tile_groups = 0, k_blocks = 0;  // 0: the shape cannot run fused
  int chunk = 0;                      // channels of V in shared memory at a time (multiple of 16)
  bool chunked = false;               // chunk < padded C: one tile group and K block a warp
  int row_split = 1;                  // warps sharing one tile group and K block (fused_split_launch)
};

// The launch for a shape: the most tile groups (4, 2, 1) with which two blocks share an SM's
// `shared_limit` bytes (one K block a warp), else one tile group in a block alone (two K blocks a
// warp; two tile groups would need twice one's bytes), else (and for an odd C or K) chunks of the
// channels in a block alone, as few and as even as fit; none for a tile larger than kFusedMaxTileSide, nothing to
// compute, U of 2^31 elements or more, or a shared memory too small for one channel step.
constexpr FusedLaunch fused_launch(int n, int C, int K, long long shared_limit) {
  if (n > kFusedMaxTileSide || C < 1 || K < 1 || C > INT_MAX - kFusedChannelStep || K > INT_MAX - 2 * kFusedBlockK)
    return {};
  const int Cp = fused_padded_channels(C), Kp = fused_padded_outputs(K);
  if (static_cast<long long>(n) * n * Kp * Cp > INT_MAX) return {};  // U's 32-bit offsets
  if (C % 2 == 0 && K % 2 == 0) {  // odd counts take the chunked kernels, which go element by element
    for (int groups = 4; groups >= 1; groups /= 2)
      if (2 * fused_shared_bytes(n, Cp, groups, 1) <= shared_limit) return {groups, 1, Cp, false};
    if (fused_shared_bytes(n, Cp, 1, 2) <= shared_limit) return {1, 2, Cp, false};
  }
  const long long step_bytes = fused_shared_bytes(n, kFusedChannelStep, 1, 1) - fused_shared_bytes(n, 0, 1, 1);
  const long long fit = (shared_limit - fused_shared_bytes(n, 0, 1, 1)) / step_bytes;  // channel steps a chunk holds
  if (fit < 1) return {};
  const int steps = Cp / kFusedChannelStep, chunks = static_cast<int>((steps + fit - 1) / fit);
  return {1, 1, (steps + chunks - 1) / chunks * kFusedChannelStep, true};
}

// Warps of a split launch that hold domain rows (no more than there are rows).
NOVA_HD constexpr int fused_row_parts(int n, int row_split) { return row_split < n ? row_split : n; }

// Bytes of the partial outputs the warps of a split launch hand to the first warp of their unit
// through shared memory (where V was): 32 lanes' m * m x 4 fp32 outputs of every row-holding warp
// but the first of each unit.
NOVA_HD constexpr long long fused_partial_bytes(int n, int m, int row_split) {
  return static_cast<long long>(kFusedWarps / row_split) * (fused_row_parts(n, row_split) - 1) * 32 * m * m * 4 * 4;
}

// Elements (16-bit) from the start of V to the U buffers: V of the chunk, or the partial outputs of
// a split launch where they are larger.
NOVA_HD constexpr long long fused_v_region_halves(int n, int m, const FusedLaunch& l) {
  const long long v = static_cast<long long>(n) * n * fused_block_tiles(l.tile_groups) * l.chunk;
  const long long partial = l.row_split > 1 ? fused_partial_bytes(n, m, l.row_split) / 2 : 0;
  return v > partial ? v : partial;
}

// Shared memory of a launch: fused_shared_bytes, with room for a split launch's partial outputs.
constexpr long long fused_launch_shared_bytes(int n, int m, const FusedLaunch& l) {
  return fused_shared_bytes(n, l.chunk, l.tile_groups, l.k_blocks) +
         (fused_v_region_halves(n, m, l) - static_cast<long long>(n) * n * fused_block_tiles(l.tile_groups) * l.chunk) * 2;
}

// K blocks of 8 one block of a launch takes (the grid's y dimension splits K into such slices):
// unchunked every one; chunked one a warp; split one a unit of row_split warps.
NOVA_HD constexpr int fused_k_slice(int K, const FusedLaunch& l) {
  if (l.row_split > 1) return kFusedWarps / l.row_split;
  return l.chunked ? kFusedWarps : fused_padded_outputs(K) / kFusedBlockK;
}
NOVA_HD constexpr long long fused_blocks(long long tiles, int K, const FusedLaunch& l) {
  const int blocks_k = fused_padded_outputs(K) / kFusedBlockK, k_slice = fused_k_slice(K, l);
  return (tiles + fused_block_tiles(l.tile_groups) - 1) / fused_block_tiles(l.tile_groups) *
         ((blocks_k + k_slice - 1) / k_slice);
}

// Where U_xi[k][c] lies in the fused filter layout: 8 (k) x 16 (c) blocks, the mma's B fragments (PTX
// ISA, mma.m16n8k16, B = U^T: lane g * 4 + q holds U[g][2q], U[g][2q + 1], U[g][2q + 8], U[g][2q +
// 9]). The blocks go by K block, then domain row i (xi = i * n + j), then channel step: the n blocks
// of one step (positions j of row i) form one run, which a warp copies at once (UStream), and the
// next step's run follows it, so that the copy of a step is one address and constant offsets. In a
// run the fragments go by pair of positions, then lane (8 halves: position j's 4, then j + 1's), so
// that a lane reads the fragments of two positions in one 16-byte load, and a warp's load is 512
// contiguous bytes. C is the padded count.
NOVA_HD constexpr int fused_u_lane(int k, int c) { return (k % 8) * 4 + (c % 8) / 2; }
NOVA_HD constexpr int fused_u_half(int c) { return (c % 16) / 8 * 2 + c % 2; }
// Halves from the start of a run to element (k, c) of position j's block.
NOVA_HD constexpr int fused_u_run_offset(int j, int k, int c) {
  return ((j / 2 * 32 + fused_u_lane(k, c)) * 2 + j % 2) * 4 + fused_u_half(c);
}

NOVA_HD constexpr long long fused_filter_index(int n, int xi, int k, int c, int C) {
  const long long row = static_cast<long long>(k / kFusedBlockK) * n + xi / n;
  const long long run = row * (C / kFusedChannelStep) + c / kFusedChannelStep;
  return run * n * (kFusedBlockK * kFusedChannelStep) + fused_u_run_offset(xi % n, k, c);
}
struct MmaFilterOrder {  // fused_filter_order's layout for these kernels (the MFMA kernel has its own)
  NOVA_HD static constexpr long long index(int xi, int k, int c, int nn, int /*K*/, int C) {
    int n = 1;
    while (n * n < nn) ++n;
    return fused_filter_index(n, xi, k, c, C);
  }
};

// Elements of the fused filter of a K x C convolution on an n x n tile (padded counts).
constexpr long long fused_filter_elements(int n, int K, int C) {
  return static_cast<long long>(n) * n * fused_padded_outputs(K) * fused_padded_channels(C);
}

// What the fused launchers need to know of the device: its shared memory per block (bytes), its
// multiprocessors (compute units), whether the wgmma kernel (fused_wgmma_kernels.hpp) runs there (an
// sm_90 device and a build with sm_90a code) and whether the MFMA kernel (fused_mfma_kernels.hpp)
// does (an AMD CDNA2 or CDNA3 device).
struct FusedDevice {
  int shared_limit = 0;
  int multiprocessors = 0;
  bool wgmma = false;
  bool mfma = false;
  int row_split = 1;  // the mma.sync kernel's launch (fused_split_launch): the runtime sets it per forward
  // The tables of the storage type whose sum is the forward's transform's B^T (x) B^T (its registry entry's
  // kronecker_terms_fp16 / _bf16): where not 0 the wgmma kernel may take its input transform on the tensor
  // cores; the runtime sets it per forward.
  int kronecker_terms = 0;
};

// The launch of a shape with its domain rows split over `row_split` warps (1, 2, 4 or 8; the
// runtime's cost model picks it per forward, GpuBackend::launch_of): for a split, the warps of a
// block split the domain rows of one K block among row_split of them (their partial outputs summed
// through shared memory) and the grid's y dimension takes K in slices of kFusedWarps / row_split K
// blocks: row_split times the blocks of a chunked launch, each warp's chain of products a
// row_split-th as long, the input transform done once a slice. Small grids (small batches, few
// tiles) gain; a full grid pays the repeated input transform. Split launches run the chunked
// kernels (whose warps already own one K block and tile group each, with the registers of a block
// alone), in one chunk where every channel fits. fused_launch's where row_split <= 1 or the partial
// outputs do not fit.
constexpr FusedLaunch fused_split_launch(int n, int m, int C, int K, int row_split, long long shared_limit) {
  const FusedLaunch l = fused_launch(n, C, K, shared_limit);
  if (l.tile_groups == 0 || row_split <= 1) return l;
  const FusedLaunch split{1, 1, l.chunk, true, row_split};
  return fused_launch_shared_bytes(n, m, split) <= shared_limit ? split : l;
}

struct FusedConvArgs {
  const void* x;       // N x C x H x W (layout as the kernel's), the kernel's storage type
  const void* U;       // transformed filter in fused_filter_index order (padded K and C)
  void* y;             // N x K x Hout x Wout
  const float* bias;   // K values or nullptr
  int relu;
  int K;               // output channels
  FusedLaunch launch;  // tile groups, K blocks and chunk of this launch
  int k_slice;         // K blocks of 8 a block takes (blockIdx.y picks which): every one unchunked
  TileGrid grid;       // the input's tiling (channels = C)
  // The wgmma kernel's own fields, unused by the others. Two are 16-bit so that the parameter stays 128 bytes: the
  // mma.sync kernels take it too, and when a third int made it 136, ptxas gave their NHWC v2 variants 252 registers
  // in place of 192 and they ran 31-38 % slower at C >= 256, batch 1 (docs/performance.md, "Fused v5.38").
  std::int16_t u_stages = 0;  // its U ring (fused_wg_u_stages)
  std::int16_t tc_input = 0;  // its input transform on the tensor cores (fused_wg_tc_input) in this launch: the tiles
                              // a patch copy brings (fused_wg_tc_copy_tiles), 0 where it transforms on the FP pipes
  int group_tiles = 0;        // its tiles a tile group (fused_wg_group_size), at most its kTiles; 0: kTiles
};
static_assert(sizeof(FusedConvArgs) == 128, "the fused kernels' parameter grew: check the mma.sync kernels' registers");

// ---------------------------------------------------------------------------------------------
// Device side.

#ifdef NOVA_KERNEL_EMULATION
inline char* fused_shared_memory() { return nova::emulation::dynamic_shared.data(); }

inline void copy_run(void* to, const void* from) { std::memcpy(to, from, 16); }
#else
__device__ inline char* fused_shared_memory() {
  extern __shared__ __align__(16) char fused_shared[];
  return fused_shared;
}

// Eight channels (16 bytes, aligned) in one access.
__device__ inline void copy_run(void* to, const void* from) {
  *reinterpret_cast<uint4*>(to) = *reinterpret_cast<const uint4*>(from);
}
#endif

// f(std::integral_constant<int, i>{}) for i = 0 .. count - 1: a loop unrolled in the source, where
// clang's unroller gives up on the size of the body (the bf16 epilogue on AMD targets).
template <int count, class F>
__device__ __forceinline__ void for_each_index(F&& f) {
  [&]<int... i>(std::integer_sequence<int, i...>) {
    (f(std::integral_constant<int, i>{}), ...);
  }(std::make_integer_sequence<int, count>{});
}

// AMD's matrix-core targets (gfx90a, gfx94x) run every fused forward on the MFMA kernel
// (fused_mfma_kernels.hpp, FusedDevice::mfma), so there this kernel has no code and is never launched.
#if defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#define NOVA_FUSED_MFMA 1
#endif

// The body of a fused kernel on a target without code for it (the mma.sync kernel on CDNA, the wgmma
// kernel off sm_90a, the MFMA kernel off CDNA): the runtime never launches it there (FusedDevice); a
// launch that did would stop the stream with a trap, not leave y unwritten.
__device__ inline void fused_kernel_absent() {
#if defined(__CUDACC__) && !defined(__HIP__)
  __trap();
#else
  __builtin_trap();
#endif
}

// Matrix cores: mma.sync from sm_80 on. A U fragment is what one lane needs of a U block: on the
// mma path its 4 halves (the B fragment), loaded ahead into registers; on the portable path the
// block itself, from which the per-thread product reads what it needs.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define NOVA_FUSED_MMA 1
template <typename T> using UFragment = uint2;
#else
template <typename T> using UFragment = const T*;
#endif

// acc[b] += the warp's 16 (tile) x 16 (channel) block of V_xi times the 16 x 8 (k) block of U_xi^T
// of its K block b. block: the V block (fused_v_offset) of the warp's tile group, channel step
// `step` and position xi; lane_row: fused_v_lane_row(lane, step); u[b]: this lane's fragment of K
// block b's U block (on the portable path: where position j's lies in its run, fused_u_run_offset).
// acc[b][e] is (tile lane / 4 + 8 (e / 2), k 2 (lane % 4) + e % 2), the mma's C fragment.
template <typename T, int kKBlocks>
__device__ inline void fused_mma(float (&acc)[kKBlocks][4], const T* block, int lane_row, int step,
                                 const UFragment<T> (&u)[kKBlocks], int lane) {
#ifdef NOVA_FUSED_MMA
  static_assert(std::is_same_v<T, __half> || std::is_same_v<T, hip_bfloat16>, "the mma multiplies fp16 or bf16");
  (void)step, (void)lane;
  unsigned a0, a1, a2, a3;
  const auto address = static_cast<unsigned>(__cvta_generic_to_shared(block + lane_row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
               : "r"(address));
  // The operand type is part of the instruction's name (and asm takes only a literal).
#define NOVA_FUSED_MMA_M16N8K16(ab)                                                                            \
  asm("mma.sync.aligned.m16n8k16.row.col.f32." ab "." ab ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, " \
      "{%0, %1, %2, %3};\n"                                                                                    \
      : "+f"(acc[b][0]), "+f"(acc[b][1]), "+f"(acc[b][2]), "+f"(acc[b][3])                                    \
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(u[b].x), "r"(u[b].y))
#pragma unroll
  for (int b = 0; b < kKBlocks; ++b) {
    if constexpr (std::is_same_v<T, __half>)
      NOVA_FUSED_MMA_M16N8K16("f16");
    else
      NOVA_FUSED_MMA_M16N8K16("bf16");
  }
#undef NOVA_FUSED_MMA_M16N8K16
#else
  (void)lane_row;
  const int g = lane / 4, q = lane % 4;
  for (int b = 0; b < kKBlocks; ++b)
    for (int c = 0; c < kFusedChannelStep; ++c) {
      const float v0 = to_float(block[fused_v_block_offset(g, c, step)]),
                  v1 = to_float(block[fused_v_block_offset(g + 8, c, step)]);
      const float u0 = to_float(u[b][fused_u_run_offset(0, 2 * q, c)]),
                  u1 = to_float(u[b][fused_u_run_offset(0, 2 * q + 1, c)]);
      acc[b][0] += v0 * u0, acc[b][1] += v0 * u1, acc[b][2] += v1 * u0, acc[b][3] += v1 * u1;
    }
#endif
}

// The U blocks a warp multiplies with, one step (domain row i, channel step of the chunk) after
// another: on the mma path each step's n blocks of every K block of the warp are copied into the
// warp's shared buffer two steps ahead (cp.async), so that L2's latency overlaps the products of
// the steps before; elsewhere they are read from the filter in place. Two steps ahead because one
// left the loop waiting on U, and loads into registers further ahead do not fit beside the
// accumulators (docs/performance.md, "Fused v3"). Every step commits one group of copies (empty
// where nothing is left to fetch), so that waiting for the oldest step is always waiting for all
// but the newest group, without a branch.
template <typename T, int n, int kKBlocks>
struct UStream {
  static_assert(n % 2 == 0, "a lane reads the fragments of two positions at once; a copy's 16-byte chunks split evenly");
  static constexpr int kHalves = kFusedBlockK * kFusedChannelStep;  // one 8 x 16 block
  static constexpr int kStepHalves = n * kHalves;                   // one K block's run of one step
  static constexpr int kBlocks = n * kKBlocks;                      // blocks of one step
  static constexpr int kChunks = kBlocks * kHalves / 8;             // 16-byte copies of one step
  static_assert(kChunks % 32 == 0, "every lane copies the same number of chunks");
  const T* first;  // U of the warp's first K block, domain row 0, the chunk's first channel step
  int row;         // halves from one domain row to the next (fused_launch keeps U below 2^31)
  int k_block;     // halves from one K block to the next
  int steps;       // channel steps of the chunk
  T* buffer;       // this warp's fused_u_buffer_halves(n, kKBlocks): kFusedUSlots steps
  int lane;

  struct Cursor {  // the step the next fetch copies: its run of the first K block, its channel step
    const T* run;
    int step;
  };
  __device__ Cursor start(int row_index) const { return {first + row_index * row, 0}; }

  // The step at `at` starts on its way into `slot`, and `at` moves on to the warp's next step: the
  // next run where the warp takes every channel step of every row (kContiguous: the runs of the
  // filter follow each other), else past the chunk's last step the first of the row `stride` on.
  // Lane l copies chunks l + 32 q of the step: chunk l + 32 q - 16 n b of K block b's run.
  template <bool kContiguous>
  __device__ void fetch(Cursor& at, int slot, int stride) const {
#ifdef NOVA_FUSED_MMA
    const T* from = at.run + lane * 8;
    const auto to = static_cast<unsigned>(__cvta_generic_to_shared(buffer + slot * kBlocks * kHalves + lane * 8));
#pragma unroll
    for (int q = 0; q * 32 < kChunks; ++q) {
      const int b = 2 * q / n;  // the same for every lane (n even)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to + q * 512),
                   "l"(from + b * k_block + (2 * q - b * n) * kHalves));
    }
    if (kContiguous || ++at.step < steps) {
      at.run += kStepHalves;
    } else {
      at.step = 0;
      at.run += stride * row - (steps - 1) * kStepHalves;
    }
#else
    (void)at, (void)slot, (void)stride;
#endif
  }

  __device__ void commit() const {
#ifdef NOVA_FUSED_MMA
    asm volatile("cp.async.commit_group;\n" ::);
#endif
  }

  // Waits for the oldest step in flight. The warp barrier also means every lane is done with the
  // slot the step before used.
  __device__ void wait() const {
#ifdef NOVA_FUSED_MMA
    asm volatile("cp.async.wait_group 1;\n" ::);
    warp_sync();
#endif
  }

  // This lane's fragments of positions j and j + 1 (j even) of K block b at channel step `step` of
  // row i, fetched into `slot`: on the mma path one 16-byte load (fused_u_run_offset).
  __device__ void fragment_pair(int i, int j, int step, int b, int slot, UFragment<T>& even, UFragment<T>& odd) const {
#ifdef NOVA_FUSED_MMA
    (void)i, (void)step;
    const uint4 w = *reinterpret_cast<const uint4*>(buffer + (slot * kBlocks + b * n) * kHalves + fused_u_run_offset(j, 0, 0) +
                                                    lane * 8);
    even = {w.x, w.y}, odd = {w.z, w.w};
#else
    (void)slot;
    even = first + i * row + b * k_block + step * kStepHalves + fused_u_run_offset(j, 0, 0);
    odd = even + 4;
#endif
  }
};

// The block's shared memory and tiles, as every phase sees them.
template <typename T>
struct FusedBlock {
  T* vs;                // V of the chunk: every tile, channel and position (fused_v_offset)
  int capacity;         // tiles the block's V has room for (16 x tile groups)
  int steps;            // channel steps of the chunk in V
  T* u_buffers;         // [warp][fused_u_buffer_halves]
  TileOrigin* origins;  // of the block's tiles
  int tiles;            // the block's tiles (fewer in the grid's last block)
};

// Phase 1: V = B^T d B of every (channel pair, tile) of the chunk starting at channel c0 into the
// block's shared memory; from NHWC images consecutive threads take consecutive pairs of a tile,
// from NCHW images consecutive tiles of a pair (see the top). Channels at or beyond C are zero.
// With two K blocks a warp the kernel has registers to spare here: a thread loads the patches of
// kItemsAhead items before it transforms the first, so that their loads' latencies overlap.
template <class Transform, typename T, Layout layout, int kKBlocks, bool kChunked>
__device__ __forceinline__ void fused_input_transform(const FusedConvArgs& a, const FusedBlock<T>& blk, int c0,
                                                      int pairs) {
  constexpr int n = Transform::n, nn = n * n;
  constexpr int kItemsAhead = kKBlocks == 1 ? 1 : 2;
  const TileGrid& g = a.grid;
  const T* x = static_cast<const T*>(a.x);
  const int threads = static_cast<int>(blockDim.x), C = g.channels;
  const int items = pairs * blk.capacity, plane = layout == Layout::nhwc ? 1 : g.height * g.width;
  // Only the chunked kernels meet an odd C (fused_launch); the others keep their registers for the
  // patches.
  const bool word = layout == Layout::nhwc && (!kChunked || C % 2 == 0);
#pragma unroll 1
  for (int first = static_cast<int>(threadIdx.x); first < items; first += kItemsAhead * threads) {
    StoragePair<T> raw[kItemsAhead][nn];
#pragma unroll
    for (int ahead = 0; ahead < kItemsAhead; ++ahead) {
      const int item = first + ahead * threads;
      const int t = layout == Layout::nhwc ? item / pairs : item % blk.capacity;
      const int c = c0 + 2 * (layout == Layout::nhwc ? item % pairs : item / blk.capacity);
      const bool valid = item < items && t < blk.tiles && c < C;
      const int next = word || c + 1 < C ? plane : 0;
      load_pair_patch<n, Transform::m, layout>(x, g, blk.origins[valid ? t : 0], c, valid, next, word, raw[ahead]);
    }
#pragma unroll
    for (int ahead = 0; ahead < kItemsAhead; ++ahead) {
      const int item = first + ahead * threads;
      if (item >= items) break;
      const int t = layout == Layout::nhwc ? item / pairs : item % blk.capacity;
      const int pair = layout == Layout::nhwc ? item % pairs : item / blk.capacity;
      const bool second = word || c0 + 2 * pair + 1 < C;
      float v0[nn], v1[nn];
      transform_pair_patch<Transform, T>(raw[ahead], v0, v1);
      T* at = blk.vs + fused_v_offset(t, 2 * pair, 0, nn, blk.steps);
#pragma unroll
      for (int xi = 0; xi < nn; ++xi) store_pair(at + xi * kFusedVBlock, v0[xi], second ? v1[xi] : 0.0f);
    }
  }
}

// The bias of the two output channels this lane holds in K block kb + b, zero beyond K.
__device__ __forceinline__ void fused_bias_pair(const FusedConvArgs& a, int kb, int b, int lane, float& b0, float& b1) {
  const int k = (kb + b) * kFusedBlockK + lane % 4 * 2;
  b0 = a.bias && k < a.K ? a.bias[k] : 0.0f, b1 = a.bias && k + 1 < a.K ? a.bias[k + 1] : 0.0f;
}

// Phase 3 for NHWC images straight from the accumulators: bias, ReLU, and each lane stores its two
// channels of every pixel, as one 4-byte pair (K even) or one element each (K odd: chunked kernels
// only, fused_launch), with one copy of the store loop per (ReLU, clipped tile). With one K block a
// warp (two blocks an SM, whose loops overlap the stores) restaging measured slower (VGG-16 64@224:
// 469 -> 486 us, docs/performance.md).
template <class Transform, typename T, int kKBlocks, bool kChunked>
__device__ __forceinline__ void fused_store_direct(const FusedConvArgs& a, const FusedBlock<T>& blk,
                                                   const float (&out)[kKBlocks][Transform::m * Transform::m][4],
                                                   int t0, int kb, int lane) {
  constexpr int m = Transform::m;
  const TileGrid& g = a.grid;
  T* y = static_cast<T*>(a.y);
  const bool word = !kChunked || a.K % 2 == 0;
  for_each_index<kKBlocks>([&](auto block) {
    constexpr int b = decltype(block)::value;
    const int k = (kb + b) * kFusedBlockK + lane % 4 * 2;
    if (k >= a.K) return;
    const bool second = word || k + 1 < a.K;
    float b0, b1;
    fused_bias_pair(a, kb, b, lane, b0, b1);
    const auto emit = [&](int h, const TileOrigin& o, auto relu, auto clipped) {
      const PatchWalk walk = patch_walk<Layout::nhwc>(o.image, k, o.row, o.col, a.K, g.out_height, g.out_width);
#pragma unroll
      for (int p = 0; p < m * m; ++p) {
        const int r = p / m, s = p % m;
        if (decltype(clipped)::value && (o.row + r >= g.out_height || o.col + s >= g.out_width)) continue;
        float first = out[b][p][2 * h] + b0, second_value = out[b][p][2 * h + 1] + b1;
        if (decltype(relu)::value) first = fmaxf(first, 0.0f), second_value = fmaxf(second_value, 0.0f);
        T* at = y + walk.at(r, s);
        if (word) {
          store_pair(at, first, second_value);
        } else {
          store(at, first);
          if (second) store(at + 1, second_value);
        }
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
  });
}

// The epilogue's first half: bias and ReLU of every output the lane holds, handed to
// stage(b, h, p, first, second) (channels 2 (lane % 4) and +1 of K block b, tile lane / 4 + 8 h of
// the group, pixel p) between two warp barriers, the first because the staging buffer is the U
// buffer every lane has just read from.
template <class Transform, int kKBlocks, class Stage>
__device__ __forceinline__ void fused_stage_outputs(const FusedConvArgs& a,
                                                    const float (&out)[kKBlocks][Transform::m * Transform::m][4], int kb,
                                                    int lane, Stage&& stage) {
  constexpr int m = Transform::m;
  warp_sync();
#pragma unroll
  for (int b = 0; b < kKBlocks; ++b) {
    float b0, b1;
    fused_bias_pair(a, kb, b, lane, b0, b1);
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int p = 0; p < m * m; ++p) {
        float first = out[b][p][2 * h] + b0, second = out[b][p][2 * h + 1] + b1;
        if (a.relu) first = fmaxf(first, 0.0f), second = fmaxf(second, 0.0f);
        stage(b, h, p, first, second);
      }
  }
  warp_sync();
}

// Phase 3 with two K blocks a warp (one block an SM), NHWC and K a multiple of 8: bias and ReLU,
// then the warp restages its outputs through its U buffer (free once the loop is done) as
// [tile][pixel][its 16 channels], so that each lane stores whole 16-byte channel runs of a pixel:
// a quarter of the store instructions, and sectors written whole (VGG-16 128@112: 363 -> 320 us,
// docs/performance.md). A tile's row is padded by 16 bytes, which keeps the pair writes free of bank
// conflicts.
template <class Transform, typename T, int kKBlocks>
__device__ __forceinline__ void fused_store_restaged(const FusedConvArgs& a, const FusedBlock<T>& blk,
                                                     const float (&out)[kKBlocks][Transform::m * Transform::m][4],
                                                     T* staging, int t0, int kb, int lane) {
  constexpr int m = Transform::m, n = Transform::n;
  const TileGrid& g = a.grid;
  T* y = static_cast<T*>(a.y);
  constexpr int kRun = kKBlocks * kFusedBlockK, kTileStride = m * m * kRun + 8;  // elements
  static_assert(kFusedGroupTiles * kTileStride <= kFusedUSlots * n * kKBlocks * kFusedBlockK * kFusedChannelStep,
                "the restaged outputs must fit in the warp's U buffer (codegen fuses only m * m < 3 n)");
  fused_stage_outputs<Transform, kKBlocks>(a, out, kb, lane, [&](int b, int h, int p, float first, float second) {
    store_pair(staging + (lane / 4 + 8 * h) * kTileStride + b * kFusedBlockK + lane % 4 * 2 + p * kRun, first, second);
  });
  constexpr int kRuns = kFusedGroupTiles * m * m * kKBlocks;
#pragma unroll 1
  for (int c = lane; c < kRuns; c += 32) {
    const int t = c / (m * m * kKBlocks), p = c / kKBlocks % (m * m), b = c % kKBlocks;
    if (t0 + t >= blk.tiles || (kb + b) * kFusedBlockK >= a.K) continue;
    const TileOrigin o = blk.origins[t0 + t];
    const int row = o.row + p / m, col = o.col + p % m;
    if (row >= g.out_height || col >= g.out_width) continue;
    copy_run(y + ((o.image * g.out_height + row) * g.out_width + col) * a.K + (kb + b) * kFusedBlockK,
             staging + t * kTileStride + p * kRun + b * kFusedBlockK);
  }
  warp_sync();  // the next tile group's U copies overwrite the buffer
}

// Phase 3 of the one-K-block kernels for NHWC images, by the whole block, where K is a multiple of
// 8 and every warp takes as many K blocks as the others (fused_block_stores, so that all meet the
// same barriers): after a block barrier each warp writes its biased, rectified outputs into the
// block's U buffers (free once every warp is done with the tile group) as [tile][pixel][the block's
// 64 channels], and then the block stores whole pixels of those channels, 16 bytes a thread: the
// 128 bytes of a pixel's 64 channels are one run in y. Stored by each warp instead, a warp
// instruction writes half sectors of 8 pixels, and the epilogue cost about as much as the input
// transform (VGG-16 64@224: 432.1 -> 404.6 us, docs/performance.md "Where the mma.sync kernel's time
// goes"). With two K blocks a warp the warp's own 16-byte runs stay faster (fused_store_restaged).
// A tile is padded by 16 bytes, which keeps the writes of a lane quad's 8 tiles in different banks.
inline constexpr int kFusedBlockRun = kFusedWarps * kFusedBlockK;  // channels a block stages
NOVA_HD constexpr int fused_block_tile_stride(int m) { return m * m * kFusedBlockRun + 8; }  // halves
NOVA_HD constexpr bool fused_block_stores(Layout layout, int K) {
  return layout == Layout::nhwc && K % kFusedBlockK == 0 && fused_padded_outputs(K) / kFusedBlockK % kFusedWarps == 0;
}
template <class Transform, typename T>
__device__ __forceinline__ void fused_store_block(const FusedConvArgs& a, const FusedBlock<T>& blk,
                                                  const float (&out)[1][Transform::m * Transform::m][4], int t0, int kb,
                                                  int warp, int lane) {
  constexpr int m = Transform::m, n = Transform::n;
  constexpr int kRun = kFusedBlockRun, kTileStride = fused_block_tile_stride(m);
  static_assert(kFusedGroupTiles * kTileStride <= kFusedWarps * fused_u_buffer_halves(n, 1),
                "the block's staged outputs must fit in its U buffers");
  const TileGrid& g = a.grid;
  T* y = static_cast<T*>(a.y);
  T* staging = blk.u_buffers;
  const int k0 = (kb - warp) * kFusedBlockK;  // the block's first channel
  __syncthreads();  // every warp is done with its U buffer
  fused_stage_outputs<Transform, 1>(a, out, kb, lane, [&](int, int h, int p, float first, float second) {
    store_pair(staging + (lane / 4 + 8 * h) * kTileStride + p * kRun + warp * kFusedBlockK + lane % 4 * 2, first, second);
  });
  __syncthreads();
  constexpr int kChunks = kRun / 8;  // 16-byte runs of a pixel
#pragma unroll 1
  for (int c = static_cast<int>(threadIdx.x); c < kFusedGroupTiles * m * m * kChunks; c += static_cast<int>(blockDim.x)) {
    const int t = c / (m * m * kChunks), p = c / kChunks % (m * m), q = c % kChunks;
    if (t0 + t >= blk.tiles || k0 + q * 8 >= a.K) continue;
    const TileOrigin o = blk.origins[t0 + t];
    const int row = o.row + p / m, col = o.col + p % m;
    if (row >= g.out_height || col >= g.out_width) continue;
    copy_run(y + ((o.image * g.out_height + row) * g.out_width + col) * a.K + k0 + q * 8, staging + t * kTileStride + p * kRun + q * 8);
  }
  __syncthreads();  // the next tile group's U copies overwrite the buffers
}

// Tile row `from` (restaged outputs, aligned to an element pair) to `to` in y: as aligned runs where
// `runs` (nchw_rows_on_runs of y) holds, one store a run instead of one an element, else element by
// element; columns from the output width on are not stored.
template <int m, typename T>
__device__ __forceinline__ void store_staged_tile_row(T* to, const T* from, int col, int out_width, bool runs) {
  constexpr int kRun = output_run_length(m, sizeof(T));
  if constexpr (kRun > 1) {
    if (runs) {
#pragma unroll
      for (int s = 0; s < m; s += kRun) {
        if (col + s >= out_width) break;
        ElementRun<T, kRun> run;
#pragma unroll
        for (int e = 0; e < kRun; e += 2) {
          const ElementPair<T> p = *reinterpret_cast<const ElementPair<T>*>(from + s + e);
          run.e[e] = p.a, run.e[e + 1] = p.b;
        }
        *reinterpret_cast<ElementRun<T, kRun>*>(to + s) = run;
      }
      return;
    }
  }
#pragma unroll
  for (int s = 0; s < m; ++s)
    if (col + s < out_width) to[s] = from[s];
}

// Phase 3 for NCHW images: bias and ReLU, then the warp restages its outputs through its U buffer
// (free once the loop is done) as [channel][tile][pixel], and each lane stores a tile row of one
// channel per step, so that consecutive lanes write consecutive tiles of an image row (stored
// straight from the accumulators, the planes' scattered pairs cost the one-K-block kernels spills).
template <class Transform, typename T, int kKBlocks>
__device__ __forceinline__ void fused_store_planes(const FusedConvArgs& a, const FusedBlock<T>& blk,
                                                   const float (&out)[kKBlocks][Transform::m * Transform::m][4],
                                                   T* staging, int t0, int kb, int lane) {
  constexpr int m = Transform::m, n = Transform::n;
  constexpr int kChannels = kKBlocks * kFusedBlockK, kChannelStride = kFusedGroupTiles * m * m + 8;  // elements
  static_assert(kChannels * kChannelStride <= kFusedUSlots * n * kKBlocks * kFusedBlockK * kFusedChannelStep,
                "the restaged outputs must fit in the warp's U buffer (codegen fuses only m * m < 3 n)");
  const TileGrid& g = a.grid;
  T* y = static_cast<T*>(a.y);
  fused_stage_outputs<Transform, kKBlocks>(a, out, kb, lane, [&](int b, int h, int p, float first, float second) {
    T* at = staging + (b * kFusedBlockK + lane % 4 * 2) * kChannelStride + (lane / 4 + 8 * h) * m * m + p;
    store(at, first);
    store(at + kChannelStride, second);
  });
  const int plane = g.out_height * g.out_width;
  const bool runs = nchw_rows_on_runs<m>(y, g.out_width);
#pragma unroll 1
  for (int unit = lane; unit < kChannels * kFusedGroupTiles * m; unit += 32) {
    const int t = unit % kFusedGroupTiles, r = unit / kFusedGroupTiles % m, c = unit / (kFusedGroupTiles * m);
    const int k = kb * kFusedBlockK + c;
    if (t0 + t >= blk.tiles || k >= a.K) continue;
    const TileOrigin o = blk.origins[t0 + t];
    const int row = o.row + r;
    if (row >= g.out_height) continue;
    T* to = y + (o.image * a.K + k) * plane + row * g.out_width + o.col;
    store_staged_tile_row<m>(to, staging + c * kChannelStride + t * m * m + r * m, o.col, g.out_width, runs);
  }
  warp_sync();  // the next tile group's U copies overwrite the buffer
}

// Phase 2 for one tile group of one warp over the chunk in shared memory: y += A^T (V U) A of tiles
// t0 .. t0 + 15 and the warp's K blocks (out[b][pixel][e]: the mma's C fragment layout), position
// by position. Each domain row i of M is accumulated over the chunk's channels, then folded into
// the outputs at once, so only the m x m outputs and one row of M stay in registers. kRowSplit: the
// warp takes only the rows i with i % split == part (a split launch), else every row (and the
// code is what it was before split launches: the one-K-block F(4,3) kernels have no register to
// spare).
template <class Transform, typename T, int kKBlocks, bool kRowSplit = false>
__device__ __forceinline__ void fused_accumulate(float (&out)[kKBlocks][Transform::m * Transform::m][4],
                                                 const FusedBlock<T>& blk, const UStream<T, Transform::n, kKBlocks>& u,
                                                 int t0, int lane, int part = 0, int split = 1) {
  constexpr int m = Transform::m, n = Transform::n, nn = n * n;
  const int steps = u.steps, total = (kRowSplit ? (n - part + split - 1) / split : n) * steps;  // of the warp's rows
  if (kRowSplit && total == 0) return;
  const T* group_v = blk.vs + t0 / kFusedGroupTiles * blk.steps * nn * kFusedVBlock;  // fused_v_offset
  int slot = 0;  // of the step being multiplied; the next two are in flight
  auto next = u.start(part);
  u.template fetch<!kRowSplit>(next, 0, split);
  u.commit();
  if (total > 1) u.template fetch<!kRowSplit>(next, 1, split);
  u.commit();
#pragma unroll
  for (int i = 0; i < n; ++i) {
    if (kRowSplit && i % split != part) continue;
    float mrow[n][kKBlocks][4] = {};
#pragma unroll 1
    for (int step = 0; step < steps; ++step) {
      const int f = (kRowSplit ? (i - part) / split : i) * steps + step;  // steps multiplied so far
      u.wait();
      if (f + 2 < total) u.template fetch<!kRowSplit>(next, slot == 0 ? 2 : slot - 1, split);
      u.commit();
      // The blocks of this step and row: one base, positions at constant offsets.
      const T* v_row = group_v + (step * nn + i * n) * kFusedVBlock;
      const int lane_row = fused_v_lane_row(lane, step);
#pragma unroll
      for (int j = 0; j < n; j += 2) {
        UFragment<T> even[kKBlocks], odd[kKBlocks];
#pragma unroll
        for (int b = 0; b < kKBlocks; ++b) u.fragment_pair(i, j, step, b, slot, even[b], odd[b]);
        fused_mma<T>(mrow[j], v_row + j * kFusedVBlock, lane_row, step, even, lane);
        fused_mma<T>(mrow[j + 1], v_row + (j + 1) * kFusedVBlock, lane_row, step, odd, lane);
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
}

// The epilogue of one tile group: restaged where it can be (see fused_store_restaged), else direct.
template <class Transform, typename T, Layout layout, int kKBlocks, bool kChunked>
__device__ __forceinline__ void fused_store(const FusedConvArgs& a, const FusedBlock<T>& blk,
                                            const float (&out)[kKBlocks][Transform::m * Transform::m][4], T* staging,
                                            int t0, int kb, int lane) {
  if constexpr (layout == Layout::nchw) {
    fused_store_planes<Transform, T, kKBlocks>(a, blk, out, staging, t0, kb, lane);
  } else {
    if constexpr (kKBlocks > 1)
      if (a.K % kFusedBlockK == 0) return fused_store_restaged<Transform, T, kKBlocks>(a, blk, out, staging, t0, kb, lane);
    fused_store_direct<Transform, T, kKBlocks, kChunked>(a, blk, out, t0, kb, lane);
  }
}

// Phases 2 and 3 for one tile group of one warp, every channel in shared memory. `out` is declared
// here, beside the rows of M, not by the caller: there ptxas schedules the one-K-block kernels
// differently (the same instruction count and registers, but a different order).
template <class Transform, typename T, Layout layout, int kKBlocks>
__device__ __forceinline__ void fused_tile_group(const FusedConvArgs& a, const FusedBlock<T>& blk,
                                                 const UStream<T, Transform::n, kKBlocks>& u, int t0, int kb,
                                                 int warp, int lane, bool block_stores) {
  constexpr int m = Transform::m;
  float out[kKBlocks][m * m][4] = {};
  fused_accumulate<Transform, T, kKBlocks>(out, blk, u, t0, lane);
  if constexpr (kKBlocks == 1)
    if (block_stores) return fused_store_block<Transform, T>(a, blk, out, t0, kb, warp, lane);
  fused_store<Transform, T, layout, kKBlocks, false>(a, blk, out, u.buffer, t0, kb, lane);
}

// The block's tiles (blockIdx.x's, `capacity` a block) and their origins, written by the block's
// threads before its first barrier.
template <typename T>
__device__ __forceinline__ void fused_block_origins(FusedBlock<T>& blk, const TileGrid& g, int m) {
  const long long first_tile = static_cast<long long>(blockIdx.x) * blk.capacity;
  blk.tiles = g.tiles - first_tile < blk.capacity ? static_cast<int>(g.tiles - first_tile) : blk.capacity;
  for (int t = static_cast<int>(threadIdx.x); t < blk.tiles; t += static_cast<int>(blockDim.x))
    blk.origins[t] = tile_origin(g, first_tile + t, m);
}

// A split launch's partial outputs: after the block's last product, each row-holding warp but the
// first of its unit of row_split warps writes its outputs where V was (lane-fastest: no bank
// conflicts), and the first adds them to its own.
template <class Transform, typename T>
__device__ __forceinline__ void fused_sum_rows(float (&out)[1][Transform::m * Transform::m][4], const FusedBlock<T>& blk,
                                               int split, int warp, int lane) {
  constexpr int n = Transform::n, kOutputs = Transform::m * Transform::m * 4;
  const int parts = fused_row_parts(n, split), part = warp % split;
  // The slots of this warp's unit: one for each of its warps 1 .. parts - 1.
  float* unit = reinterpret_cast<float*>(blk.vs) + warp / split * (parts - 1) * kOutputs * 32 + lane;
  __syncthreads();  // every warp is done with V
  if (part > 0 && part < parts)
#pragma unroll
    for (int o = 0; o < kOutputs; ++o) unit[((part - 1) * kOutputs + o) * 32] = out[0][o / 4][o % 4];
  __syncthreads();
  if (part == 0)
    for (int q = 1; q < parts; ++q)
#pragma unroll
      for (int o = 0; o < kOutputs; ++o) out[0][o / 4][o % 4] += unit[((q - 1) * kOutputs + o) * 32];
}

// The kernel body: lay out shared memory, then phase 1 for the block and phases 2 and 3 for each of
// a warp's K blocks and each tile group; or, chunked or split, phases 1 and 2 for each chunk and
// phase 3 once.
template <class Transform, typename T, Layout layout, int kKBlocks, bool kChunked>
__device__ void fused_conv_tiles(const FusedConvArgs& a) {
#ifdef NOVA_FUSED_MFMA
  (void)a;
  fused_kernel_absent();
#else
  constexpr int m = Transform::m, n = Transform::n;
  static_assert(fused_tile_supported(m, n), "a tile the fused kernels take (kernel_table.hpp)");
  static_assert(!kChunked || kKBlocks == 1, "a chunked warp keeps one K block's outputs through phase 1");
  const int threads = static_cast<int>(blockDim.x), warps = threads / 32;
  const TileGrid& g = a.grid;
  const int Cp = fused_padded_channels(g.channels), steps = Cp / kFusedChannelStep;
  // The chunk's channel pairs, computed before the first barrier: computed after it (in
  // fused_input_transform), the one-K-block f4x3 kernels spill 76 to 172 bytes.
  const int width = a.launch.chunk, pairs = width / 2;
  FusedBlock<T> blk;
  blk.vs = reinterpret_cast<T*>(fused_shared_memory());
  blk.capacity = fused_block_tiles(a.launch.tile_groups);
  blk.steps = width / kFusedChannelStep;
  // Split launches (chunked kernels only) may need more room than V for their partial outputs.
  blk.u_buffers = blk.vs + (kChunked ? fused_v_region_halves(n, m, a.launch)
                                     : static_cast<long long>(n) * n * blk.capacity * width);
  blk.origins = reinterpret_cast<TileOrigin*>(blk.u_buffers + warps * fused_u_buffer_halves(n, kKBlocks));
  fused_block_origins(blk, g, m);

  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int blocks_k = fused_padded_outputs(a.K) / kFusedBlockK;
  const int kb_end = blocks_k < (static_cast<int>(blockIdx.y) + 1) * a.k_slice ? blocks_k : (static_cast<int>(blockIdx.y) + 1) * a.k_slice;
  constexpr int kBlockHalves = kFusedBlockK * kFusedChannelStep;
  T* u_buffer = blk.u_buffers + warp * fused_u_buffer_halves(n, kKBlocks);
  const T* U = static_cast<const T*>(a.U);
  const auto stream = [&](int kb, int first_step, int chunk_steps) {
    const int row = steps * n * kBlockHalves;  // fused_filter_index
    return UStream<T, n, kKBlocks>{U + kb * n * row + first_step * n * kBlockHalves, row, n * row, chunk_steps, u_buffer,
                                   lane};
  };
  if constexpr (!kChunked) {
    __syncthreads();
    fused_input_transform<Transform, T, layout, kKBlocks, kChunked>(a, blk, 0, pairs);
    __syncthreads();
    // Every warp meets the block stores' barriers as often as the others (fused_block_stores).
    const bool block_stores = kKBlocks == 1 && fused_block_stores(layout, a.K);
#pragma unroll 1
    for (int kb = static_cast<int>(blockIdx.y) * a.k_slice + warp * kKBlocks; kb < kb_end; kb += warps * kKBlocks) {
      const UStream<T, n, kKBlocks> u = stream(kb, 0, steps);  // fused_launch: K blocks come in pairs
#pragma unroll 1
      for (int t0 = 0; t0 < blk.tiles; t0 += kFusedGroupTiles)
        fused_tile_group<Transform, T, layout, kKBlocks>(a, blk, u, t0, kb, warp, lane, block_stores);
    }
  } else {
    // One tile group; K block blockIdx.y * k_slice + warp / split for this warp, which takes the
    // domain rows i % split == warp % split (split launches, fused_split_launch; else every row).
    const int split = a.launch.row_split, kb = static_cast<int>(blockIdx.y) * a.k_slice + warp / split, part = warp % split;
    float out[kKBlocks][m * m][4] = {};
#pragma unroll 1
    for (int c0 = 0; c0 < Cp; c0 += width) {
      const int chunk = width < Cp - c0 ? width : Cp - c0;
      blk.steps = chunk / kFusedChannelStep;
      __syncthreads();  // the block is done with the chunk before
      fused_input_transform<Transform, T, layout, kKBlocks, kChunked>(a, blk, c0, chunk / 2);
      __syncthreads();
      if (kb < kb_end)
        fused_accumulate<Transform, T, kKBlocks, true>(out, blk, stream(kb, c0 / kFusedChannelStep, chunk / kFusedChannelStep), 0,
                                                       lane, part, split);
    }
    if (split > 1) fused_sum_rows<Transform, T>(out, blk, split, warp, lane);
    if (kb < kb_end && part == 0) fused_store<Transform, T, layout, kKBlocks, true>(a, blk, out, u_buffer, 0, kb, lane);
  }
#endif  // NOVA_FUSED_MFMA
}

// Reorders a transformed filter U [nn][K][C] into a fused layout (Order::index: MmaFilterOrder, or
// the MFMA kernel's) with K and C padded (zeros); one element of the padded filter per thread.
template <typename T, class Order = MmaFilterOrder>
__global__ void __launch_bounds__(kBlockThreads) fused_filter_order(const T* __restrict__ U, T* __restrict__ F, int nn,
                                                                     int K, int C) {
  const int Kp = fused_padded_outputs(K), Cp = fused_padded_channels(C);
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<long long>(nn) * Kp * Cp) return;
  const int c = static_cast<int>(i % Cp), k = static_cast<int>(i / Cp % Kp), xi = static_cast<int>(i / Cp / Kp);
  F[Order::index(xi, k, c, nn, Kp, Cp)] =
      k < K && c < C ? U[(static_cast<long long>(xi) * K + k) * C + c] : storage_zero<T>();
}

// The grid of a fused launch: x over blocks of tiles, y over slices of K (fused_k_slice).
inline dim3 fused_grid(const TileGrid& g, int K, const FusedLaunch& launch, int& k_slice) {
  const int blocks_k = fused_padded_outputs(K) / kFusedBlockK;
  k_slice = fused_k_slice(K, launch);
  const long long tiles = fused_block_tiles(launch.tile_groups);
  return dim3(static_cast<unsigned>((g.tiles + tiles - 1) / tiles), static_cast<unsigned>((blocks_k + k_slice - 1) / k_slice));
}

// ---------------------------------------------------------------------------------------------
// Host side.

#if NOVA_HOST_LAUNCHERS
template <typename T, class Order = MmaFilterOrder>
hipError_t launch_fused_filter_order(const T* U, T* F, int nn, int K, int C, hipStream_t stream) {
  const long long count = static_cast<long long>(nn) * fused_padded_outputs(K) * fused_padded_channels(C);
  if (count == 0) return hipSuccess;
  fused_filter_order<T, Order><<<filter_blocks(count), kBlockThreads, 0, stream>>>(U, F, nn, K, C);
  return hipGetLastError();
}

// Beyond 48 KB a kernel must opt in to its dynamic shared memory, once per kernel and device, up to
// the device's limit (GpuBackend does it for every fused kernel of a transform it first runs).
inline hipError_t fused_opt_in(const void* kernel, int shared_limit) {
  return hipFuncSetAttribute(kernel, hipFuncAttributeMaxDynamicSharedMemorySize, shared_limit);
}

// The tile grid of a fused forward, hipErrorInvalidValue where its sizes or y's 32-bit offsets do not
// fit.
inline hipError_t fused_tile_grid(const TileSize& t, int N, int C, int H, int W, int K, int pad, TileGrid& g) {
  if (!make_tile_grid(t.m, t.r, N, C, H, W, pad, g) ||
      static_cast<long long>(N) * K * g.out_height * g.out_width > INT_MAX)  // y's 32-bit offsets
    return hipErrorInvalidValue;
  return hipSuccess;
}

// Launches the mma.sync kernel on the tile grid `g` of a validated shape: `variants` are the
// transform's kernels of this storage type and layout (one K block a warp, two, chunked).
template <typename T>
hipError_t launch_fused_conv(const void* const* variants, const TileSize& t, const T* x, const T* U, T* y,
                             const float* bias, int relu, const TileGrid& g, int K, const FusedDevice& device,
                             hipStream_t stream) {
  const int C = g.channels;
  const FusedLaunch launch = fused_split_launch(t.n, t.m, C, K, device.row_split, device.shared_limit);
  if (launch.tile_groups == 0) return hipErrorInvalidValue;
  const int variant = fused_mma_variant(launch.k_blocks, launch.chunked);
  const auto shared = static_cast<int>(fused_launch_shared_bytes(t.n, t.m, launch));
  int k_slice = 0;
  const dim3 grid = fused_grid(g, K, launch, k_slice);
  if ((g.tiles + fused_block_tiles(launch.tile_groups) - 1) / fused_block_tiles(launch.tile_groups) > INT_MAX ||
      grid.y > 65535)
    return hipErrorInvalidValue;
  return launch_kernel(variants[variant], grid, dim3(kFusedThreads), shared, stream,
                       FusedConvArgs{x, U, y, bias, relu, K, launch, k_slice, g});
}
#endif

}  // namespace nova::kernels
