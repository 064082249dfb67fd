// The fused Winograd convolution's second generation, for Hopper (sm_90a): the same mathematics as
// fused_kernels.hpp (V = B^T d B into shared memory, M_xi = U_xi V_xi over the channels, y = A^T M A
// folded a domain row at a time, bias, ReLU), reorganised around wgmma and a warp-specialised block
// of three warpgroups:
//   - two producer warpgroups transform the input of one tile group (kTiles = 16 or 8 tiles, every
//     channel) after another into a ring of two V slots, each in wgmma's B layout (wgmma.hpp), and
//     hand each slot over through a block barrier (mbarrier);
//   - one consumer warpgroup multiplies: for each block of 64 output channels and each domain row
//     i, the n products U_(i,j) V_(i,j) (wgmma m64 x kTiles x 16, both operands read by the tensor
//     cores from shared memory, no ldmatrix) of every channel step, U streamed by the copy engine
//     (cp.async.bulk) through a ring of kWgUStages stages, each the n blocks of one (row, channel
//     step), contiguous in the filter (fused_wg_filter_index); then folds the row into the outputs
//     as fused_accumulate does, and stores each output row of pixels through a shared staging buffer
//     (NHWC: 16-byte channel runs; NCHW: consecutive tiles of a plane row);
//   - the grid is persistent (one block an SM), so the producers transform the next tile group
//     while the consumer multiplies this one.
// Compared with the mma.sync kernel this moves 64 x 16 + 16 x kTiles operand elements through
// shared memory per 64 x kTiles x 16 product (the mma.sync loop moves 16 x 16 + 16 x 8 per
// 16 x 8 x 16), and the input transform overlaps the products instead of preceding them.
// Where it runs: sm_90a builds (NOVA_FUSED_WGMMA), and the CPU emulation; elsewhere the kernel is
// empty and fused_wg_launch is never asked (the runtime checks the device and the build).
#pragma once

#include "nova/kernels/fused_kernels.hpp"
#include "nova/kernels/wgmma.hpp"

namespace nova::kernels {

inline constexpr int kWgThreads = 384;          // three warpgroups
inline constexpr int kWgProducerThreads = 256;  // the first two
inline constexpr int kWgConsumerThreads = 128;  // the third
inline constexpr int kWgVSlots = 2;
inline constexpr int kWgUStages = 4;
inline constexpr int kWgStagingPitch = kWgRows + 8;  // elements a staged NHWC pixel: 16 bytes of padding
inline constexpr int kWgProducerRegisters = 136;    // setmaxnreg: 256 x 136 + 128 x 240 = the SM's 65536
inline constexpr int kWgConsumerRegisters = 240;
inline constexpr int kWgBarriers = 2 * kWgVSlots + kWgUStages;  // V full, V empty, U full

// K as the consumer sees it: whole blocks of 64 output channels (wgmma's M).
NOVA_HD constexpr int fused_wg_padded_outputs(int K) { return (K + kWgRows - 1) / kWgRows * kWgRows; }

// Shared memory of one block, in 16-bit elements after the barriers: two V slots, the U stages, the
// staging buffer of one output row of pixels (sized by n > m, NHWC's padded pixels or NCHW's planes).
struct WgLayout {
  int steps;      // channel steps of 16
  int v_slot;     // n^2 positions x steps x kTiles x 16
  int u_stage;    // n blocks of 64 x 16
  int staging;    // kTiles x n x kWgStagingPitch
  long long bytes;
};
NOVA_HD constexpr WgLayout fused_wg_layout(int n, int C, int tiles) {
  WgLayout l{};
  l.steps = fused_padded_channels(C) / kFusedChannelStep;
  l.v_slot = n * n * l.steps * tiles * kWgDepth;
  l.u_stage = n * wg_operand_elements(kWgRows);
  l.staging = tiles * n * kWgStagingPitch;
  l.bytes = kWgBarriers * 16 + 2LL * (static_cast<long long>(kWgVSlots) * l.v_slot + kWgUStages * l.u_stage + l.staging);
  return l;
}

// The tiles of a tile group for a shape: 16 where two V slots of every channel fit the shared memory,
// else 8, else 0 (not this kernel). The tile must fit the registers (n <= kFusedMaxTileSide) and U
// and y their 32-bit offsets.
constexpr int fused_wg_tiles(int n, int C, int K, long long shared_limit) {
  if (n > kFusedMaxTileSide || C < 1 || K < 1 || C > (1 << 20) || K > (1 << 20)) return 0;
  if (static_cast<long long>(n) * n * fused_wg_padded_outputs(K) * fused_padded_channels(C) > INT_MAX) return 0;
  for (int tiles = 16; tiles >= 8; tiles /= 2)
    if (fused_wg_layout(n, C, tiles).bytes <= shared_limit) return tiles;
  return 0;
}

// Whether a fused forward of this shape on this device runs the wgmma kernel (else the mma.sync one);
// the filter's layout follows.
constexpr bool fused_uses_wgmma(const FusedDevice& device, int n, int C, int K) {
  return device.wgmma && fused_wg_tiles(n, C, K, device.shared_limit) > 0;
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

// Element (tile t, channel c) of position xi's V in a V slot: per position `steps` B blocks of
// kTiles x 16.
NOVA_HD constexpr int fused_wg_v_offset(int xi, int t, int c, int steps, int tiles) {
  return (xi * steps + c / kFusedChannelStep) * tiles * kWgDepth + wg_operand_offset(t, c % kFusedChannelStep);
}

// The persistent grid: one block an SM, no more than the tile groups.
inline int fused_wg_blocks(long long tiles, int tile_group, int multiprocessors) {
  const long long groups = (tiles + tile_group - 1) / tile_group;
  return static_cast<int>(groups < multiprocessors ? groups : multiprocessors);
}

#if defined(NOVA_FUSED_WGMMA) || defined(NOVA_KERNEL_EMULATION)

// What both roles see of the block.
template <typename T>
struct WgBlock {
  WgBarrier* v_full;   // [kWgVSlots]: the producers have written the slot (256 arrivals)
  WgBarrier* v_empty;  // [kWgVSlots]: the consumer has multiplied it (128 arrivals)
  WgBarrier* u_full;   // [kWgUStages]: the stage's bytes have arrived (1 arrival + bytes)
  T* v;                // [kWgVSlots][v_slot]
  T* u;                // [kWgUStages][u_stage]
  T* staging;
  WgLayout layout;
  long long groups;    // tile groups of the whole grid
};

// The producers: V of each of the block's tile groups (blockIdx.x, + gridDim.x, ...) into slot
// q % 2, once the consumer has released it. A thread takes a channel pair of one tile per item;
// NHWC: a warp takes 4 pairs (16 bytes of a pixel) of 8 tiles, NCHW: consecutive tiles of a pair;
// either way a warp's 4-byte stores into the slot cover 32 different banks (NCHW: two ways).
template <class Transform, typename T, Layout layout, int kTiles>
__device__ __forceinline__ void fused_wg_produce(const FusedConvArgs& a, const WgBlock<T>& blk, int thread) {
  constexpr int n = Transform::n, m = Transform::m, nn = n * n;
  const TileGrid& g = a.grid;
  const T* x = static_cast<const T*>(a.x);
  const int C = g.channels, steps = blk.layout.steps, items = steps * (kFusedChannelStep / 2) * kTiles;
  const int plane = layout == Layout::nhwc ? 1 : g.height * g.width;
  const bool word = layout == Layout::nhwc && C % 2 == 0;
  int q = 0;
#pragma unroll 1
  for (long long group = blockIdx.x; group < blk.groups; group += gridDim.x, ++q) {
    const int slot = q % kWgVSlots;
    if (q >= kWgVSlots) wg_wait(&blk.v_empty[slot], (q / kWgVSlots - 1) & 1);
    T* v = blk.v + slot * blk.layout.v_slot;
    const long long first_tile = group * kTiles;
#pragma unroll 1
    for (int item = thread; item < items; item += kWgProducerThreads) {
      const int t = layout == Layout::nhwc ? item / 4 % kTiles : item % kTiles;
      const int pair = layout == Layout::nhwc ? item % 4 + item / (4 * kTiles) * 4 : item / kTiles;
      const int c = 2 * pair;
      const bool valid = first_tile + t < g.tiles && c < C, second = word || c + 1 < C;
      const TileOrigin o = tile_origin(g, valid ? first_tile + t : 0, m);
      const int next = second ? plane : 0;
      StoragePair<T> raw[nn];
      walk_patch<n, layout>(g, o, c, valid, [&](int e, bool inside, int at) {
        raw[e] = load_channel_pair<layout>(x, at, next, inside, word);
      });
      float d0[nn], d1[nn], v0[nn], v1[nn];
#pragma unroll
      for (int e = 0; e < nn; ++e) unpack_pair(raw[e], d0[e], d1[e]);
      Transform::input_2d(d0, v0);
      Transform::input_2d(d1, v1);
      T* at = v + fused_wg_v_offset(0, t, c, steps, kTiles);
#pragma unroll
      for (int xi = 0; xi < nn; ++xi) store_pair(at + xi * steps * kTiles * kWgDepth, v0[xi], second ? v1[xi] : 0.0f);
    }
    wg_fence_operands();  // the tensor cores read the slot next
    wg_arrive(&blk.v_full[slot]);
  }
}

// The consumer's epilogue for output block kh of a tile group: bias, ReLU, and the outputs an
// output row of pixels at a time through the staging buffer.
template <class Transform, typename T, Layout layout, int kTiles>
__device__ __forceinline__ void fused_wg_store(const FusedConvArgs& a, const WgBlock<T>& blk,
                                               const float (&out)[Transform::m * Transform::m][kTiles / 2],
                                               long long first_tile, int kh, int thread) {
  constexpr int m = Transform::m;
  const TileGrid& g = a.grid;
  T* y = static_cast<T*>(a.y);
  float bias[kTiles / 2];
#pragma unroll
  for (int d = 0; d < kTiles / 2; ++d) {
    const int k = kh * kWgRows + wg_accumulator_row(thread, d);
    bias[d] = a.bias && k < a.K ? a.bias[k] : 0.0f;
  }
#pragma unroll  // out[r * m + s] must stay in registers
  for (int r = 0; r < m; ++r) {
#pragma unroll
    for (int d = 0; d < kTiles / 2; ++d) {
      const int kl = wg_accumulator_row(thread, d), t = wg_accumulator_column(thread, d);
#pragma unroll
      for (int s = 0; s < m; ++s) {
        float value = out[r * m + s][d] + bias[d];
        if (a.relu) value = fmaxf(value, 0.0f);
        store(blk.staging + (layout == Layout::nhwc ? (t * m + s) * kWgStagingPitch + kl : (kl * kTiles + t) * m + s),
              value);
      }
    }
    wg_consumer_sync();
    if constexpr (layout == Layout::nhwc) {
      constexpr int kRuns = kWgRows / 8;  // 16-byte runs of a staged pixel
#pragma unroll 1
      for (int unit = thread; unit < kTiles * m * kRuns; unit += kWgConsumerThreads) {
        const int run = unit % kRuns, s = unit / kRuns % m, t = unit / (kRuns * m), k = kh * kWgRows + run * 8;
        if (first_tile + t >= g.tiles || k >= a.K) continue;
        const TileOrigin o = tile_origin(g, first_tile + t, m);
        const int row = o.row + r, col = o.col + s;
        if (row >= g.out_height || col >= g.out_width) continue;
        T* to = y + (static_cast<long long>(o.image * g.out_height + row) * g.out_width + col) * a.K + k;
        const T* from = blk.staging + (t * m + s) * kWgStagingPitch + run * 8;
        if (a.K % 8 == 0) {
          copy_run(to, from);
        } else {
          for (int e = 0; e < 8 && k + e < a.K; ++e) to[e] = from[e];
        }
      }
    } else {
#pragma unroll 1
      for (int unit = thread; unit < kWgRows * kTiles; unit += kWgConsumerThreads) {
        const int t = unit % kTiles, kl = unit / kTiles, k = kh * kWgRows + kl;
        if (first_tile + t >= g.tiles || k >= a.K) continue;
        const TileOrigin o = tile_origin(g, first_tile + t, m);
        const int row = o.row + r;
        if (row >= g.out_height) continue;
        T* to = y + (static_cast<long long>(o.image * a.K + k) * g.out_height + row) * g.out_width + o.col;
        const T* from = blk.staging + (kl * kTiles + t) * m;
#pragma unroll
        for (int s = 0; s < m; ++s)
          if (o.col + s < g.out_width) to[s] = from[s];
      }
    }
    wg_consumer_sync();  // the next row's staging overwrites the buffer
  }
}

// The consumer: for each of the block's tile groups, each block of 64 output channels and each
// domain row, the products of every channel step, folded into the outputs; then the epilogue.
template <class Transform, typename T, Layout layout, int kTiles>
__device__ __forceinline__ void fused_wg_consume(const FusedConvArgs& a, const WgBlock<T>& blk, int thread) {
  constexpr int m = Transform::m, n = Transform::n, kAcc = kTiles / 2;
  const int steps = blk.layout.steps, blocks_k = fused_wg_padded_outputs(a.K) / kWgRows;
  const long long stages_per_group = static_cast<long long>(blocks_k) * n * steps;
  const long long my_groups = (blk.groups - blockIdx.x + gridDim.x - 1) / gridDim.x;
  const long long total = my_groups * stages_per_group;
  const T* U = static_cast<const T*>(a.U);
  const int stage_bytes = blk.layout.u_stage * 2;
  // Stage f of the block's sequence: stage f % stages_per_group of the filter, into slot f % stages.
  const auto fetch = [&](long long f) {
    if (thread != 0 || f >= total) return;
    WgBarrier* full = &blk.u_full[f % kWgUStages];
    wg_arrive_expect_bytes(full, stage_bytes);
    wg_bulk_copy(blk.u + f % kWgUStages * blk.layout.u_stage, U + f % stages_per_group * blk.layout.u_stage,
                 stage_bytes, full);
  };
  for (int f = 0; f < kWgUStages - 1; ++f) fetch(f);
  long long f = 0;
  int q = 0;
#pragma unroll 1
  for (long long group = blockIdx.x; group < blk.groups; group += gridDim.x, ++q) {
    const int slot = q % kWgVSlots;
    wg_wait(&blk.v_full[slot], (q / kWgVSlots) & 1);
    const T* v = blk.v + slot * blk.layout.v_slot;
#pragma unroll 1
    for (int kh = 0; kh < blocks_k; ++kh) {
      float out[m * m][kAcc] = {};
#pragma unroll
      for (int i = 0; i < n; ++i) {
        float mrow[n][kAcc] = {};
        wgmma_fence();
#pragma unroll 1
        for (int step = 0; step < steps; ++step, ++f) {
          const int stage = static_cast<int>(f % kWgUStages);
          wg_wait(&blk.u_full[stage], static_cast<int>(f / kWgUStages) & 1);
          const T* u = blk.u + stage * blk.layout.u_stage;
#pragma unroll
          for (int j = 0; j < n; ++j)
            wgmma_m64k16<T, kTiles>(mrow[j], wg_descriptor(wg_shared_address(u + j * wg_operand_elements(kWgRows))),
                                    wg_descriptor(wg_shared_address(v + fused_wg_v_offset(i * n + j, 0, step * kFusedChannelStep,
                                                                                          steps, kTiles))),
                                    thread);
          wgmma_commit();
          wgmma_wait<1>();      // the products of stage f - 1 are done
          wg_consumer_sync();   // in every warp: its slot is free
          fetch(f + kWgUStages - 1);
        }
        wgmma_wait<0>();
        if (kh == blocks_k - 1 && i == n - 1) wg_arrive(&blk.v_empty[slot]);  // the producers may refill it
        // Row i of M through A^T along the row, then scaled by column i of A^T into every output row.
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
#pragma unroll
            for (int s = 0; s < m; ++s) out[r * m + s][e] += column[r] * z[s];
        }
      }
      fused_wg_store<Transform, T, layout, kTiles>(a, blk, out, group * kTiles, kh, thread);
    }
  }
}

// The kernel body: barriers and shared memory, then each warpgroup to its role.
template <class Transform, typename T, Layout layout, int kTiles>
__device__ void fused_wg_conv_tiles(const FusedConvArgs& a) {
  static_assert(Transform::n <= kFusedMaxTileSide, "the output accumulators of a larger tile do not fit in registers");
  const TileGrid& g = a.grid;
  char* shared = fused_shared_memory();
  WgBlock<T> blk;
  blk.v_full = reinterpret_cast<WgBarrier*>(shared);
  blk.v_empty = blk.v_full + kWgVSlots;
  blk.u_full = blk.v_empty + kWgVSlots;
  blk.layout = fused_wg_layout(Transform::n, g.channels, kTiles);
  blk.v = reinterpret_cast<T*>(shared + kWgBarriers * 16);
  blk.u = blk.v + kWgVSlots * blk.layout.v_slot;
  blk.staging = blk.u + kWgUStages * blk.layout.u_stage;
  blk.groups = (g.tiles + kTiles - 1) / kTiles;
  const int thread = static_cast<int>(threadIdx.x);
  if (thread == 0) {
    for (int s = 0; s < kWgVSlots; ++s) wg_barrier_init(&blk.v_full[s], kWgProducerThreads), wg_barrier_init(&blk.v_empty[s], kWgConsumerThreads);
    for (int s = 0; s < kWgUStages; ++s) wg_barrier_init(&blk.u_full[s], 1);
  }
  __syncthreads();
  if (thread < kWgProducerThreads) {
    wg_set_registers<kWgProducerRegisters>(false);
    fused_wg_produce<Transform, T, layout, kTiles>(a, blk, thread);
  } else {
    wg_set_registers<kWgConsumerRegisters>(true);
    fused_wg_consume<Transform, T, layout, kTiles>(a, blk, thread - kWgProducerThreads);
  }
}

#endif  // NOVA_FUSED_WGMMA || NOVA_KERNEL_EMULATION

// What a generated kernel calls: the kernel where wgmma exists, nothing elsewhere (never launched).
template <class Transform, typename T, Layout layout, int kTiles>
__device__ void fused_wg_conv_body(const FusedConvArgs& a) {
#if defined(NOVA_FUSED_WGMMA) || defined(NOVA_KERNEL_EMULATION)
  fused_wg_conv_tiles<Transform, T, layout, kTiles>(a);
#else
  (void)a;
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

#ifndef NOVA_KERNEL_EMULATION
template <typename T>
hipError_t launch_fused_wg_filter_order(const T* U, T* F, int n, int K, int C, hipStream_t stream) {
  const long long count = fused_wg_filter_elements(n, K, C);
  if (count == 0) return hipSuccess;
  fused_wg_filter_order<T><<<filter_blocks(count), kBlockThreads, 0, stream>>>(U, F, n, K, C);
  return hipGetLastError();
}

// The wgmma kernels of one transform and storage type: [layout][0: 16 tiles a group, 1: 8].
struct FusedWgKernels {
  FusedKernel by_layout[2][2];  // [0]: NCHW, [1]: NHWC
};

// Launches the wgmma kernel for a shape fused_uses_wgmma accepted (U in fused_wg_filter_index order).
template <class Transform, typename T>
hipError_t launch_fused_wg_conv(const FusedWgKernels& kernels, bool nhwc, const T* x, const T* U, T* y,
                                const float* bias, int relu, const TileGrid& g, int K, const FusedDevice& device,
                                hipStream_t stream) {
  const int tiles = fused_wg_tiles(Transform::n, g.channels, K, device.shared_limit);
  if (tiles == 0) return hipErrorInvalidValue;
  static const hipError_t opted_in = fused_opt_in(kernels.by_layout, device.shared_limit);
  if (opted_in != hipSuccess) return opted_in;
  const auto shared = static_cast<int>(fused_wg_layout(Transform::n, g.channels, tiles).bytes);
  const int blocks = fused_wg_blocks(g.tiles, tiles, device.multiprocessors);
  kernels.by_layout[nhwc ? 1 : 0][tiles == 16 ? 0 : 1]<<<blocks, kWgThreads, shared, stream>>>(
      FusedConvArgs{x, U, y, bias, relu, K, FusedLaunch{}, 0, g});
  return hipGetLastError();
}

// The launcher every generated file calls: the wgmma kernel where fused_uses_wgmma says, else the
// mma.sync kernel.
template <class Transform, typename T>
hipError_t launch_fused(const FusedKernels& mma, const FusedWgKernels& wg, bool nhwc, const T* x, const T* U, T* y,
                        const float* bias, int relu, int N, int C, int H, int W, int K, int pad,
                        const FusedDevice& device, hipStream_t stream) {
  TileGrid g{};
  if (const hipError_t e = fused_tile_grid<Transform>(N, C, H, W, K, pad, g); e != hipSuccess) return e;
  const bool wgmma = fused_uses_wgmma(device, Transform::n, C, K);
  if (!wgmma && fused_launch(Transform::n, C, K, device.shared_limit).tile_groups == 0) return hipErrorInvalidValue;
  if (g.tiles == 0) return hipSuccess;
  if (!x || !U || !y) return hipErrorInvalidValue;
  return wgmma ? launch_fused_wg_conv<Transform>(wg, nhwc, x, U, y, bias, relu, g, K, device, stream)
               : launch_fused_conv<Transform>(mma, nhwc, x, U, y, bias, relu, g, K, device.shared_limit, stream);
}
#endif

}  // namespace nova::kernels
