// The fused Winograd convolution for NHWC fp16 images: one kernel reads x and writes y, so V and M
// never cross device memory (the 3-pass floors in docs/performance.md show that only this brings
// the small-channel layers near cuDNN). Written once for every transform; each generated
// <name>_kernels.hip whose tile fits (n <= 6) binds it to its transform.
//
// A block takes kTiles = 8 * kTileGroups tiles and every channel:
//   1. its threads load the tiles' input patches and write V = B^T d B for every (channel, tile)
//      into shared memory as fp16 (the storage precision of the 3-pass pipeline);
//   2. 32-thread groups, 4 along K x kTileGroups along the tiles, each own a 16 x 8 block of
//      (output channel, tile). For every Winograd position xi a group computes its block of
//      M_xi = U_xi V_xi over all C (tensor-core mma, fp16 in, fp32 accumulate), and folds it into
//      y = A^T M A at once, a domain row at a time (A^T's 1D transform along the row, then one
//      column of A^T down it), so only the m*m outputs and one row of M stay in registers. Every
//      M element a thread holds has the same (k, tile) for every xi, which is what makes the
//      output transform thread-local.
//   3. the epilogue adds the bias, applies ReLU and stores fp16 pixels; K is covered in passes of
//      64 over the same shared V.
// U comes from the cached filter in fragment order (fused_filter_index): the block stages a domain
// row's blocks of U in shared memory with 16-byte copies, once for all its tile groups, and each
// thread then reads its share of a 16 x 16 block with one 16-byte load.
// Measured slower than the 3-pass pipeline on every benchmark layer (issue-bound, not
// memory-bound: docs/performance.md, "Fused v1"), so NOVA_ALGO_AUTO does not use it.
//
// Matrix cores: mma.sync m16n8k16 on NVIDIA (sm_80 and later). Every other target (AMD through
// HIP, and the CPU emulation of tests/codegen) runs the same loops with a portable per-thread
// product over the same fragment ownership; it is correct but slow (no MFMA path yet). Groups are
// fixed 32-thread slices of the block, not hardware waves, so wave64 needs no change.
#pragma once

#include "nova/runtime/transform_kernels.hpp"

namespace nova::runtime {

inline constexpr int kFusedGroupK = 16;       // output channels of a group's block
inline constexpr int kFusedGroupTiles = 8;    // tiles of a group's block
inline constexpr int kFusedKGroups = 4;       // groups along K: a pass covers 64 output channels
inline constexpr int kFusedPassK = kFusedKGroups * kFusedGroupK;
inline constexpr int kFusedChannelStep = 16;  // channels per mma (its reduction depth)
inline constexpr int kFusedRowPad = 8;        // halves after each shared V row: conflict-free ldmatrix
inline constexpr int kFusedChunkBlocks = 4;   // 16-channel blocks of U staged in shared memory at a time
inline constexpr int kFusedMaxTileSide = 6;   // n of the largest tile whose registers fit

NOVA_HD constexpr int fused_threads(int tile_groups) { return 32 * kFusedKGroups * tile_groups; }
// Blocks per SM the register budget is set for: 512 threads, so at most 128 registers each.
constexpr int fused_min_blocks(int tile_groups) { return 4 / tile_groups; }

// Shared memory of one block: V for every xi, tile and channel (rows padded), then the staged U of
// one domain row: n positions x 4 K groups x kFusedChunkBlocks blocks of 16 x 16 halves.
constexpr long long fused_u_stage_halves(int n) { return static_cast<long long>(n) * kFusedKGroups * kFusedChunkBlocks * 256; }
constexpr long long fused_shared_bytes(int n, int C, int tile_groups) {
  return (static_cast<long long>(n) * n * tile_groups * kFusedGroupTiles * (C + kFusedRowPad) + fused_u_stage_halves(n)) * 2;
}

// The most tile groups (4, 2, 1) whose shared memory fits `shared_limit` bytes, or 0 when the
// shape cannot run fused: a tile larger than kFusedMaxTileSide, C or K not a multiple of 16.
constexpr int fused_tile_groups(int n, int C, int K, long long shared_limit) {
  if (n > kFusedMaxTileSide || C < 1 || K < 1 || C % kFusedChannelStep != 0 || K % kFusedGroupK != 0) return 0;
  for (int groups = 4; groups >= 1; groups /= 2)
    if (fused_shared_bytes(n, C, groups) <= shared_limit) return groups;
  return 0;
}

// Where U_xi[k][c] lies in the fused filter layout: 16 x 16 blocks (xi, k / 16, c / 16), each the
// 32 lanes' mma A fragments in lane order, 8 halves per lane. Within a block, lane g * 4 + q holds
// rows g and g + 8, columns 2q, 2q + 1, 2q + 8, 2q + 9 (PTX ISA, mma.m16n8k16 A fragment).
NOVA_HD constexpr int fragment_offset(int row, int col) {
  return ((row % 8) * 4 + (col % 8) / 2) * 8 + (row / 8 + 2 * (col / 8)) * 2 + col % 2;
}

NOVA_HD constexpr long long fused_filter_index(int xi, int k, int c, int K, int C) {
  const long long block = (static_cast<long long>(xi) * (K / 16) + k / 16) * (C / 16) + c / 16;
  return block * 256 + fragment_offset(k % 16, c % 16);
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
#else
__device__ inline char* fused_shared_memory() {
  extern __shared__ __align__(16) char fused_shared[];
  return fused_shared;
}
#endif

// acc += the group's 16 x 16 block of U_xi times its 16 (channel) x 8 (tile) block of V_xi.
// u: the U block (fragment order); v: shared V at (xi, first tile, first channel), rows `row` apart.
__device__ inline void fused_mma(float acc[4], const __half* __restrict__ u, const __half* v, int row, int lane) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const uint4 a = *reinterpret_cast<const uint4*>(u + lane * 8);
  unsigned b0, b1;  // ldmatrix .x2: lanes 0-7 address the 8 tiles at channel 0, lanes 8-15 at channel 8
  const auto address = static_cast<unsigned>(__cvta_generic_to_shared(v + (lane % 8) * row + (lane / 8) % 2 * 8));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n" : "=r"(b0), "=r"(b1) : "r"(address));
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b0), "r"(b1));
#else
  const int g = lane / 4, q = lane % 4;  // the same ownership as the mma's C fragment
  for (int c = 0; c < kFusedChannelStep; ++c) {
    const float u0 = to_float(u[fragment_offset(g, c)]), u1 = to_float(u[fragment_offset(g + 8, c)]);
    const float v0 = to_float(v[2 * q * row + c]), v1 = to_float(v[(2 * q + 1) * row + c]);
    acc[0] += u0 * v0, acc[1] += u0 * v1, acc[2] += u1 * v0, acc[3] += u1 * v1;
  }
#endif
}

template <class Transform, int kTileGroups>
__device__ void fused_conv_tiles(const FusedConvArgs& a) {
  constexpr int m = Transform::m, n = Transform::n, nn = n * n;
  constexpr int kTiles = kTileGroups * kFusedGroupTiles, kThreads = fused_threads(kTileGroups);
  static_assert(n <= kFusedMaxTileSide, "the output accumulators of a larger tile do not fit in registers");
  const TileGrid& g = a.grid;
  const int C = g.channels, row = C + kFusedRowPad;
  __half* vs = reinterpret_cast<__half*>(fused_shared_memory());  // [nn][kTiles][row]
  const long long first_tile = static_cast<long long>(blockIdx.x) * kTiles;

  // 1. V = B^T d B of every (channel, tile); consecutive threads take consecutive channels, which
  //    are adjacent in an NHWC pixel.
#pragma unroll 1
  for (int item = static_cast<int>(threadIdx.x); item < C * kTiles; item += kThreads) {
    const int c = item % C, t = item / C;
    const long long tile = first_tile + t;
    const bool valid = tile < g.tiles;
    float d[nn];
    load_patch<n, Layout::nhwc>(a.x, g, tile_origin(g, valid ? tile : 0, m), c, valid, d);
    float v[nn];
    Transform::input_2d(d, v);
#pragma unroll
    for (int xi = 0; xi < nn; ++xi) store(vs + (xi * kTiles + t) * row + c, v[xi]);
  }
  __syncthreads();

  // 2. Each group: its (k, tile) block of y = A^T (U V) A, position by position. The U blocks of
  //    a domain row are staged in shared memory chunk by chunk, once for the block's tile groups.
  __half* us = vs + static_cast<long long>(nn) * kTiles * row;  // [j][K group][chunk block][256]
  const int group = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int k_group = group % kFusedKGroups, t0 = group / kFusedKGroups * kFusedGroupTiles;
  const int blocks_c = C / kFusedChannelStep, blocks_k = a.K / kFusedGroupK;
  for (int k_pass = 0; k_pass < a.K; k_pass += kFusedPassK) {
    const int k0 = k_pass + k_group * kFusedGroupK;
    const bool active = k0 < a.K;  // K is a multiple of 16: a group is wholly inside or past K
    float out[m * m][4] = {};
#pragma unroll 1
    for (int i = 0; i < n; ++i) {
      float mrow[n][4] = {};
      const __half* v = vs + (i * n * kTiles + t0) * row;
#pragma unroll 1
      for (int chunk = 0; chunk < blocks_c; chunk += kFusedChunkBlocks) {
        const int chunk_blocks = blocks_c - chunk < kFusedChunkBlocks ? blocks_c - chunk : kFusedChunkBlocks;
        __syncthreads();  // every group is done with the previous chunk
        // 16-byte vectors: 32 per 16 x 16 block; the chunk's blocks of one (xi, K block) are adjacent.
        const int vectors = n * kFusedKGroups * chunk_blocks * 32;
        for (int vec = static_cast<int>(threadIdx.x); vec < vectors; vec += kThreads) {
          const int in_run = vec % (chunk_blocks * 32), run = vec / (chunk_blocks * 32);
          const int kb = k_pass / kFusedGroupK + run % kFusedKGroups, j = run / kFusedKGroups;
          if (kb >= blocks_k) continue;
          const long long from = ((static_cast<long long>(i * n + j) * blocks_k + kb) * blocks_c + chunk) * 256 + in_run * 8;
          *reinterpret_cast<uint4*>(us + run * (kFusedChunkBlocks * 256) + in_run * 8) =
              *reinterpret_cast<const uint4*>(a.U + from);
        }
        __syncthreads();
        if (!active) continue;
        for (int cb = 0; cb < chunk_blocks; ++cb) {
#pragma unroll
          for (int j = 0; j < n; ++j)
            fused_mma(mrow[j], us + ((j * kFusedKGroups + k_group) * kFusedChunkBlocks + cb) * 256,
                      v + j * kTiles * row + (chunk + cb) * kFusedChannelStep, row, lane);
        }
      }
      if (!active) continue;
      // Row i of M through A^T along the row, then scaled by column i of A^T into every output row.
      float column[m], unit[n];
#pragma unroll
      for (int j = 0; j < n; ++j) unit[j] = j == i ? 1.0f : 0.0f;
      Transform::output_1d(unit, 1, column, 1);
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        float z[m];
        Transform::output_1d(&mrow[0][e], 4, z, 1);
#pragma unroll
        for (int r = 0; r < m; ++r)
#pragma unroll
          for (int s = 0; s < m; ++s) out[r * m + s][e] += column[r] * z[s];
      }
    }

    // 3. Epilogue: element e of this lane is (k0 + g + 8 (e / 2), tile t0 + 2q + e % 2).
    if (!active) continue;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int k = k0 + lane / 4 + e / 2 * 8;
      const long long tile = first_tile + t0 + lane % 4 * 2 + e % 2;
      if (tile >= g.tiles) continue;
      const TileOrigin o = tile_origin(g, tile, m);
      const PatchWalk walk = patch_walk<Layout::nhwc>(o.image, k, o.row, o.col, a.K, g.out_height, g.out_width);
      const float b = a.bias ? a.bias[k] : 0.0f;
#pragma unroll
      for (int r = 0; r < m; ++r) {
#pragma unroll
        for (int s = 0; s < m; ++s) {
          if (o.row + r >= g.out_height || o.col + s >= g.out_width) continue;  // clipped border tile
          float value = out[r * m + s][e] + b;
          if (a.relu) value = fmaxf(value, 0.0f);
          store(a.y + walk.at(r, s), value);
        }
      }
    }
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

// The launcher every generated file calls: `kernels` are its fused_conv_nhwc_f16<1, 2, 4>.
template <class Transform>
hipError_t launch_fused_conv(void (*const kernels[3])(FusedConvArgs), const __half* x, const __half* U, __half* y,
                             const float* bias, int relu, int N, int C, int H, int W, int K, int pad,
                             int shared_limit, hipStream_t stream) {
  TileGrid g{};
  if (!make_tile_grid<Transform>(N, C, H, W, pad, g) ||
      static_cast<long long>(N) * K * g.out_height * g.out_width > INT_MAX)  // y's 32-bit offsets
    return hipErrorInvalidValue;
  const int groups = fused_tile_groups(Transform::n, C, K, shared_limit);
  if (groups == 0) return hipErrorInvalidValue;
  if (g.tiles == 0) return hipSuccess;
  if (!x || !U || !y) return hipErrorInvalidValue;
  // Beyond 48 KB a kernel must opt in to its dynamic shared memory: once per kernel, up to the
  // limit of the first call's device.
  static const hipError_t opted_in = [&] {
    for (int slot = 0; slot < 3; ++slot)
      if (const hipError_t e = hipFuncSetAttribute(reinterpret_cast<const void*>(kernels[slot]),
                                                   hipFuncAttributeMaxDynamicSharedMemorySize, shared_limit);
          e != hipSuccess)
        return e;
    return hipSuccess;
  }();
  if (opted_in != hipSuccess) return opted_in;
  const int slot = groups == 4 ? 2 : groups - 1;
  const auto shared = static_cast<int>(fused_shared_bytes(Transform::n, C, groups));
  const long long blocks = (g.tiles + groups * kFusedGroupTiles - 1) / (groups * kFusedGroupTiles);
  if (blocks > INT_MAX) return hipErrorInvalidValue;
  kernels[slot]<<<static_cast<unsigned>(blocks), fused_threads(groups), shared, stream>>>(
      FusedConvArgs{x, U, y, bias, relu, K, g});
  return hipGetLastError();
}
#endif

}  // namespace nova::runtime
