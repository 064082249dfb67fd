// The fused Winograd convolution on AMD's matrix cores (MFMA: CDNA2 gfx90a, CDNA3 gfx94x), wave64:
// the mathematics of fused_kernels.hpp (V = B^T d B into LDS, M_xi = U_xi V_xi over the channels,
// y = A^T M A, bias, ReLU) with the products on v_mfma_f32_16x16x16{f16,bf16}.
//
// A block of 4 waves takes kTileGroups groups of 16 tiles and 64 output channels (a block of 16 a
// wave); the grid's y dimension splits K. For each chunk of the channels (as many as fit half the
// LDS, so that two blocks share a compute unit and one's input transform overlaps the other's
// products):
//   1. fused_mfma_input_transform writes V of every (channel, tile) of the chunk into LDS in the
//      layout below;
//   2. each wave multiplies, for every channel step of 16 and position xi, its 16 x 16 block of U_xi
//      (the MFMA's A, read straight from the filter: 8 bytes a lane, one 512-byte run a wave) by the
//      16 x 16 block of V_xi^T of each tile group (the MFMA's B, 8 bytes a lane from LDS) into M_xi,
//      so each U fragment feeds kTileGroups products.
// M (4 n^2 sums a lane and tile group) stays in registers through every chunk, so the output
// transform runs once: fused_mfma_fold, then bias, ReLU and the stores from the registers: a lane
// holds 4 consecutive output channels of one tile, which NHWC stores as one 8-byte run a pixel.
//
// Lane layouts (AMD CDNA3 ISA, "Matrix fused multiply-add"; the same for 16x16x16 f16 and bf16_1k):
// lane l of the wave holds A[row l % 16][k 4 (l / 16) + i], B[k 4 (l / 16) + i][column l % 16] and
// D[row 4 (l / 16) + i][column l % 16], i = 0 .. 3. Here A = U (row: output channel, k: channel),
// B = V^T (column: tile), so D = M^T: lane l holds output channels 4 (l / 16) + i of tile l % 16.
//
// Where it runs: gfx90a and gfx94x code (NOVA_FUSED_MFMA, fused_kernels.hpp), and the CPU emulation,
// which runs these loops through an MFMA that exchanges the operands of the 64 lanes as the hardware
// lays them out (tests/support/kernel_emulation.hpp); elsewhere the kernel is a trap and never
// launched (FusedDevice::mfma). Nothing here has run on an AMD GPU: README.md, "AMD".
#pragma once

#include "nova/kernels/fused_kernels.hpp"

#include <type_traits>

namespace nova::kernels {

inline constexpr int kMfmaWave = 64;
inline constexpr int kMfmaThreads = 256;  // 4 waves
inline constexpr int kMfmaWaves = kMfmaThreads / kMfmaWave;
inline constexpr int kMfmaSide = 16;      // the product's M (output channels), N (tiles) and K (channels)
inline constexpr int kMfmaBlockK = kMfmaWaves * kMfmaSide;  // output channels of a block

// U in the MFMA filter layout: 16 (k) x 16 (c) blocks in the order (k / 16, c / 16, xi), so that a
// wave's blocks of one channel step follow each other position by position; each block holds the 64
// lanes' A fragments in lane order: lane l's 4 halves are U[l % 16][4 (l / 16) + i] of the block. K
// and C are padded as the mma.sync kernel pads them (fused_padded_outputs, fused_padded_channels).
NOVA_HD constexpr int mfma_fragment_offset(int k, int c) { return ((c % 16) / 4 * 16 + k % 16) * 4 + c % 4; }
struct MfmaFilterOrder {
  NOVA_HD static constexpr long long index(int xi, int k, int c, int nn, int K, int C) {
    (void)K;
    const long long block = (static_cast<long long>(k / kMfmaSide) * (C / kMfmaSide) + c / kMfmaSide) * nn + xi;
    return block * (kMfmaSide * kMfmaSide) + mfma_fragment_offset(k, c);
  }
};

// V in LDS, channel step by channel step: in a step, position by position, the 16-channel rows of
// the block's kCapacity tiles, so that (step s, position xi) starts at (s nn + xi) kPlane whatever
// the chunk's width, and a wave's reads in one step differ by constants (immediate offsets of one
// address). In a tile's row
// (32 bytes) the four groups of 4 channels, the 8 bytes one lane reads, are swizzled by the tile:
// the 16 lanes that read one group of 16 consecutive tiles at a time (a quarter wave, 128 bytes,
// LDS's width) then meet 16 different 8-byte bank pairs.
NOVA_HD constexpr int mfma_v_swizzle(int t) { return t / 4 % 4; }
template <int kPositions, int kCapacity>
struct MfmaVLayout {
  static constexpr int kPlane = kCapacity * kMfmaSide;  // elements of one position in one step
  // Element (tile t, chunk channel c) of position 0.
  NOVA_HD static constexpr int offset(int t, int c) {
    return c / kMfmaSide * kPositions * kPlane + t * kMfmaSide + ((c % kMfmaSide / 4) ^ mfma_v_swizzle(t)) * 4 + c % 4;
  }
};

// Phase 1's items: one (tile, channel) of the chunk each, `capacity` tiles x `channels` channels; from
// NHWC images consecutive items are consecutive channels of a tile, from NCHW consecutive tiles of a
// channel.
struct MfmaItem {
  int tile, channel;  // channel: in the chunk
};
NOVA_HD constexpr MfmaItem mfma_item(Layout layout, int item, int channels, int capacity) {
  return layout == Layout::nhwc ? MfmaItem{item / channels, item % channels} : MfmaItem{item % capacity, item / capacity};
}

// LDS of one block: V of every position for the tiles of the block and `width` channels, then the
// tiles' origins.
constexpr long long fused_mfma_shared_bytes(int n, int width, int tile_groups) {
  const long long tiles = static_cast<long long>(kMfmaSide) * tile_groups;
  return static_cast<long long>(n) * n * tiles * width * 2 + tiles * static_cast<long long>(sizeof(TileOrigin));
}

// The launch for a shape (n x n input tiles) on a device with `lds_limit` bytes a block and
// `compute_units`: two tile groups a block (each U fragment feeds two products) where the tile has
// kernels for them (fused_mfma_max_tile_groups), one channel step of them fits half the LDS and the
// grid still gives every compute unit two blocks, else one; channel chunks as large and
// as even as fit half the LDS (two blocks a compute unit, so one's input transform overlaps the
// other's products), else all of it; none where one channel step does not fit, for tiles beyond
// kFusedMaxTileSide, or for U of 2^31 elements or more.
constexpr FusedLaunch fused_mfma_launch(int n, int C, int K, long long tiles, long long lds_limit, int compute_units) {
  if (n > kFusedMaxTileSide || C < 1 || K < 1 || C > INT_MAX - kFusedChannelStep || K > INT_MAX - kMfmaSide) return {};
  const int Cp = fused_padded_channels(C), Kp = fused_padded_outputs(K);
  if (static_cast<long long>(n) * n * Kp * Cp > INT_MAX) return {};
  const long long k_slices = (Kp + kMfmaBlockK - 1) / kMfmaBlockK;
  const bool two_groups = fused_mfma_max_tile_groups(n) >= 2 && fused_mfma_shared_bytes(n, kMfmaSide, 2) <= lds_limit / 2 &&
                          (tiles + 2 * kMfmaSide - 1) / (2 * kMfmaSide) * k_slices >= 2LL * compute_units;
  const int groups = two_groups ? 2 : 1;
  const long long header = fused_mfma_shared_bytes(n, 0, groups), step_bytes = fused_mfma_shared_bytes(n, kMfmaSide, groups) - header;
  long long fit = (lds_limit / 2 - header) / step_bytes;  // channel steps a chunk holds
  if (fit < 1) fit = (lds_limit - header) / step_bytes;
  if (fit < 1) return {};
  const int steps = Cp / kMfmaSide, chunks = static_cast<int>((steps + fit - 1) / fit);
  return {groups, 1, (steps + chunks - 1) / chunks * kMfmaSide, true};
}

// The grid of an MFMA launch: x over blocks of tiles, y over blocks of 64 output channels.
inline dim3 fused_mfma_grid(const TileGrid& g, int K, const FusedLaunch& launch) {
  const long long tiles = static_cast<long long>(kMfmaSide) * launch.tile_groups;
  return dim3(static_cast<unsigned>((g.tiles + tiles - 1) / tiles),
              static_cast<unsigned>((fused_padded_outputs(K) + kMfmaBlockK - 1) / kMfmaBlockK));
}

// ---------------------------------------------------------------------------------------------
// Device side.

#if defined(NOVA_FUSED_MFMA) || defined(NOVA_KERNEL_EMULATION)

// Four consecutive 16-bit elements: one lane's A or B fragment, one 8-byte access.
template <typename T>
struct alignas(4 * sizeof(T)) MfmaFragment {
  T v[4];
};

template <typename T>
__device__ inline MfmaFragment<T> load_fragment(const T* at) {
  return *reinterpret_cast<const MfmaFragment<T>*>(at);
}

// acc += the wave's 16 x 16 x 16 product of A and B, as this lane holds their fragments and D's.
template <typename T>
__device__ inline void mfma_16x16x16(const MfmaFragment<T>& a, const MfmaFragment<T>& b, float (&acc)[4]) {
#ifdef NOVA_KERNEL_EMULATION
  float fa[4], fb[4];
  for (int i = 0; i < 4; ++i) fa[i] = to_float(a.v[i]), fb[i] = to_float(b.v[i]);
  nova::emulation::mfma_f32_16x16x16(fa, fb, acc);
#else
  typedef float Float4 __attribute__((ext_vector_type(4)));
  Float4 c = {acc[0], acc[1], acc[2], acc[3]};
  if constexpr (std::is_same_v<T, __half>) {
    typedef _Float16 Half4 __attribute__((ext_vector_type(4)));
    c = __builtin_amdgcn_mfma_f32_16x16x16f16(__builtin_bit_cast(Half4, a), __builtin_bit_cast(Half4, b), c, 0, 0, 0);
  } else {
    static_assert(std::is_same_v<T, hip_bfloat16>, "the MFMA multiplies fp16 or bf16");
    typedef short Bf16x4 __attribute__((ext_vector_type(4)));
    c = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(__builtin_bit_cast(Bf16x4, a), __builtin_bit_cast(Bf16x4, b), c, 0, 0, 0);
  }
  for (int i = 0; i < 4; ++i) acc[i] = c[i];
#endif
}

// A value the compiler cannot prove to be the same in every lane of the wave, though it is (the
// wave's index in the block): read from the first lane, it lives in a scalar register.
__device__ inline int wave_uniform(int value) {
#ifdef NOVA_KERNEL_EMULATION
  return value;
#else
  return __builtin_amdgcn_readfirstlane(value);
#endif
}

// A barrier of the whole block. In the emulation it counts the block's threads, because its waves
// meet different numbers of the MFMA's own lane exchanges between two block barriers.
__device__ inline void fused_mfma_block_sync() {
#ifdef NOVA_KERNEL_EMULATION
  nova::emulation::block_barrier();
#else
  __syncthreads();
#endif
}

// Phase 1: V = B^T d B of every (channel, tile) of the chunk starting at channel c0 into LDS, one
// channel an item (mfma_item; a pair, as the NVIDIA kernels take them, would hold two patches and
// their transforms in registers beside M). Channels at or beyond C are zero.
template <class Transform, typename T, Layout layout, class VLayout>
__device__ __forceinline__ void fused_mfma_input_transform(const FusedConvArgs& a, const FusedBlock<T>& blk, int c0,
                                                           int channels) {
  constexpr int n = Transform::n, nn = n * n;
  const T* x = static_cast<const T*>(a.x);
  const int items = channels * blk.capacity;
#pragma unroll 1
  for (int item = static_cast<int>(threadIdx.x); item < items; item += static_cast<int>(blockDim.x)) {
    const auto [t, c] = mfma_item(layout, item, channels, blk.capacity);
    float d[nn], v[nn];
    // Element by element: the NCHW runs of load_patch were measured on NVIDIA only.
    load_patch_elements<n, layout>(x, a.grid, blk.origins[t < blk.tiles ? t : 0], c0 + c,
                                   t < blk.tiles && c0 + c < a.grid.channels, d);
    Transform::input_2d(d, v);
    T* to = blk.vs + VLayout::offset(t, c);
#pragma unroll
    for (int xi = 0; xi < nn; ++xi) store(to + xi * VLayout::kPlane, v[xi]);
  }
}

// Phase 2 for one wave over the chunk in LDS (vs): M[xi][g] += U_xi V_xi of tile group g and the
// wave's 16 output channels, over the chunk's channel steps. u: the wave's U blocks of the chunk's
// first channel step (the same address in every lane: each load is a scalar base plus this lane's
// 8-byte offset). M stays in registers through every chunk, so the outputs are folded once, after
// the last chunk.
template <class Transform, typename T, int kTileGroups>
__device__ __forceinline__ void fused_mfma_accumulate(float (&M)[Transform::n * Transform::n][kTileGroups][4],
                                                      const T* vs, const T* u, int steps, int lane) {
  constexpr int n = Transform::n, nn = n * n, kBlock = kMfmaSide * kMfmaSide;
  using VLayout = MfmaVLayout<nn, kMfmaSide * kTileGroups>;
  int at[kTileGroups];  // this lane's B fragment, V[tile][4 (lane / 16) ..], in a position's plane
#pragma unroll
  for (int g = 0; g < kTileGroups; ++g) at[g] = VLayout::offset(g * kMfmaSide + lane % 16, 4 * (lane / 16));
#pragma unroll 1
  for (int step = 0; step < steps; ++step) {
    const T* us = u + step * nn * kBlock + lane * 4;  // this lane's A fragment of the step's first block
    const T* v = vs + step * nn * VLayout::kPlane;
#pragma unroll
    for (int i = 0; i < n; ++i) {  // a domain row at a time: its fragments, then its products
      MfmaFragment<T> a[n], b[n][kTileGroups];
#pragma unroll
      for (int j = 0; j < n; ++j) {
        a[j] = load_fragment(us + (i * n + j) * kBlock);
#pragma unroll
        for (int g = 0; g < kTileGroups; ++g) b[j][g] = load_fragment(v + (i * n + j) * VLayout::kPlane + at[g]);
      }
#pragma unroll
      for (int j = 0; j < n; ++j)
#pragma unroll
        for (int g = 0; g < kTileGroups; ++g) mfma_16x16x16(a[j], b[j][g], M[i * n + j][g]);
    }
  }
}

// The outputs of M: out[g][pixel][e] = (A^T M A)[pixel] of accumulator e of tile group g, the rows
// through A^T first, then the columns.
template <class Transform, int kTileGroups>
__device__ __forceinline__ void fused_mfma_fold(float (&out)[kTileGroups][Transform::m * Transform::m][4],
                                                const float (&M)[Transform::n * Transform::n][kTileGroups][4]) {
  constexpr int m = Transform::m, n = Transform::n;
#pragma unroll
  for (int g = 0; g < kTileGroups; ++g)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      float rows[n][m];
#pragma unroll
      for (int i = 0; i < n; ++i) Transform::output_1d(&M[i * n][g][e], kTileGroups * 4, rows[i], 1);
#pragma unroll
      for (int s = 0; s < m; ++s) Transform::output_1d(&rows[0][s], m, &out[g][s][e], m * 4);
    }
}

// Phase 3: bias, ReLU and the stores of this lane's 4 output channels (from k0) of its tile of each
// group: NHWC with K a multiple of 4 as one 8-byte run a pixel, else element by element.
template <class Transform, typename T, Layout layout, int kTileGroups>
__device__ __forceinline__ void fused_mfma_store(const FusedConvArgs& a, const FusedBlock<T>& blk,
                                                 const float (&out)[kTileGroups][Transform::m * Transform::m][4],
                                                 int k0, int lane) {
  constexpr int m = Transform::m;
  const TileGrid& g = a.grid;
  if (k0 >= a.K) return;
  T* y = static_cast<T*>(a.y);
  float bias[4];
  for (int e = 0; e < 4; ++e) bias[e] = a.bias && k0 + e < a.K ? a.bias[k0 + e] : 0.0f;
  const bool run = layout == Layout::nhwc && a.K % 4 == 0;
  const int next = layout == Layout::nhwc ? 1 : g.out_height * g.out_width;  // from one channel to the next
#pragma unroll
  for (int group = 0; group < kTileGroups; ++group) {
    const int t = group * kMfmaSide + lane % 16;
    if (t >= blk.tiles) continue;
    const TileOrigin o = blk.origins[t];
    const PatchWalk walk = patch_walk<layout>(o.image, k0, o.row, o.col, a.K, g.out_height, g.out_width);
#pragma unroll
    for (int p = 0; p < m * m; ++p) {
      const int r = p / m, s = p % m;
      if (o.row + r >= g.out_height || o.col + s >= g.out_width) continue;
      float v[4];
      for (int e = 0; e < 4; ++e) {
        v[e] = out[group][p][e] + bias[e];
        if (a.relu) v[e] = fmaxf(v[e], 0.0f);
      }
      T* at = y + walk.at(r, s);
      if (run) {
        MfmaFragment<T> f;
        for (int e = 0; e < 4; ++e) store(&f.v[e], v[e]);
        *reinterpret_cast<MfmaFragment<T>*>(at) = f;
      } else {
        for (int e = 0; e < 4 && k0 + e < a.K; ++e) store(at + e * next, v[e]);
      }
    }
  }
}

// The kernel body: lay out LDS, then for each chunk of the channels phase 1 for the block and phase
// 2 for each wave; phase 3 once.
template <class Transform, typename T, Layout layout, int kTileGroups>
__device__ __forceinline__ void fused_mfma_conv_tiles(const FusedConvArgs& a) {
  constexpr int m = Transform::m, n = Transform::n, nn = n * n, kBlock = kMfmaSide * kMfmaSide;
  static_assert(fused_tile_supported(m, n), "a tile the fused kernels take (kernel_table.hpp)");
  static_assert(kTileGroups <= fused_mfma_max_tile_groups(n), "M of this many tile groups does not fit in registers");
  using VLayout = MfmaVLayout<nn, kMfmaSide * kTileGroups>;
  const TileGrid& g = a.grid;
  const int Cp = fused_padded_channels(g.channels), Kp = fused_padded_outputs(a.K), width = a.launch.chunk;
  FusedBlock<T> blk{};  // V's layout is VLayout's: width, plane and U buffers stay unused
  blk.vs = reinterpret_cast<T*>(fused_shared_memory());
  blk.capacity = kMfmaSide * kTileGroups;
  blk.origins = reinterpret_cast<TileOrigin*>(blk.vs + static_cast<long long>(nn) * blk.capacity * width);
  fused_block_origins(blk, g, m);

  const int wave = static_cast<int>(threadIdx.x) / kMfmaWave, lane = static_cast<int>(threadIdx.x) % kMfmaWave;
  const int kb = static_cast<int>(blockIdx.y) * kMfmaWaves + wave_uniform(wave);  // the wave's block of 16 output channels
  const bool active = kb < Kp / kMfmaSide;                                         // the same for every lane of the wave
  const int steps = Cp / kMfmaSide;
  const T* u = static_cast<const T*>(a.U) + static_cast<long long>(kb) * steps * nn * kBlock;
  float M[nn][kTileGroups][4] = {};
#pragma unroll 1
  for (int c0 = 0; c0 < Cp; c0 += width) {
    const int chunk = width < Cp - c0 ? width : Cp - c0;
    fused_mfma_block_sync();  // the block is done with the chunk before
    fused_mfma_input_transform<Transform, T, layout, VLayout>(a, blk, c0, chunk);
    fused_mfma_block_sync();
    if (active)
      fused_mfma_accumulate<Transform, T, kTileGroups>(M, blk.vs, u + static_cast<long long>(c0) / kMfmaSide * nn * kBlock,
                                                       chunk / kMfmaSide, lane);
  }
  if (!active) return;
  float out[kTileGroups][m * m][4];
  fused_mfma_fold<Transform, kTileGroups>(out, M);
  fused_mfma_store<Transform, T, layout, kTileGroups>(a, blk, out, kb * kMfmaSide + 4 * (lane / 16), lane);
}

#endif  // NOVA_FUSED_MFMA || NOVA_KERNEL_EMULATION

// What a generated kernel calls: the kernel where MFMA exists, nothing elsewhere (never launched).
template <class Transform, typename T, Layout layout, int kTileGroups>
__device__ __forceinline__ void fused_mfma_conv_body(const FusedConvArgs& a) {
#if defined(NOVA_FUSED_MFMA) || defined(NOVA_KERNEL_EMULATION)
  fused_mfma_conv_tiles<Transform, T, layout, kTileGroups>(a);
#else
  (void)a;
  fused_kernel_absent();
#endif
}

// ---------------------------------------------------------------------------------------------
// Host side.

#if NOVA_HOST_LAUNCHERS
// Launches the MFMA kernel (U in MfmaFilterOrder) on the tile grid `g` of a validated shape:
// `variants` are the transform's kernels of this storage type and layout (kFusedMfmaTileGroups).
template <typename T>
hipError_t launch_fused_mfma_conv(const void* const* variants, const TileSize& t, const T* x, const T* U, T* y,
                                  const float* bias, int relu, const TileGrid& g, int K, const FusedDevice& device,
                                  hipStream_t stream) {
  const FusedLaunch launch = fused_mfma_launch(t.n, g.channels, K, g.tiles, device.shared_limit, device.multiprocessors);
  if (launch.tile_groups == 0) return hipErrorInvalidValue;
  const dim3 grid = fused_mfma_grid(g, K, launch);
  if ((g.tiles + kMfmaSide * launch.tile_groups - 1) / (kMfmaSide * launch.tile_groups) > INT_MAX / kMfmaThreads ||
      grid.y > 65535)
    return hipErrorInvalidValue;
  const auto shared = static_cast<int>(fused_mfma_shared_bytes(t.n, launch.chunk, launch.tile_groups));
  return launch_kernel(variants[fused_mfma_variant(launch.tile_groups)], grid, dim3(kMfmaThreads), shared, stream,
                       FusedConvArgs{x, U, y, bias, relu, K, launch, 0, g});
}
#endif

}  // namespace nova::kernels
