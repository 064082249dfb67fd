// The tile loops of the Winograd transform kernels, written once for every transform: each
// generated <name>_kernels.hip binds them to its transform (a type with m, r, n, input_2d,
// filter_2d and output_2d, e.g. nova::generated::f6x3_nova::Transform) in __global__ kernels and
// host launchers (transform_launch.hpp). Layouts: transform_registry_gpu.hpp. HIP source; nvcc
// reads it through hip_compat.h. A CPU test defines NOVA_KERNEL_EMULATION and supplies the GPU
// built-ins itself, to run these very loops without a GPU.
//
// A block of kBlockThreads threads handles kBlockChannels channels x kBlockTiles tiles, one
// (channel, tile) per thread, all of its transform in fp32 registers. Threads never cooperate, so
// nothing depends on the wave size (32 on NVIDIA and RDNA wave32, 64 on CDNA).
#pragma once

#include "nova/kernels/hd.hpp"
#include "nova/kernels/kernel_table.hpp"
#ifndef NOVA_KERNEL_EMULATION
#include "nova/kernels/hip_compat.h"
#endif

#include <climits>

namespace nova::kernels {

inline constexpr int kBlockChannels = 16;
inline constexpr int kBlockTiles = 16;
inline constexpr int kBlockThreads = kBlockChannels * kBlockTiles;

// Where the tiles of one convolution lie; built on the host by the launchers, passed by value.
struct TileGrid {
  int images;                 // N
  int channels;               // C for the input transform, K for the output transform
  int height, width, pad;     // input image and its zero padding on every side
  int out_height, out_width;  // H + 2 pad - r + 1, W + 2 pad - r + 1
  int tiles_h, tiles_w;       // ceil(out_height / m), ceil(out_width / m)
  long long tiles;            // P = images * tiles_h * tiles_w
};

// ---------------------------------------------------------------------------------------------
// Device side.

__device__ inline float to_float(float v) { return v; }
__device__ inline float to_float(__half v) { return __half2float(v); }
__device__ inline float to_float(hip_bfloat16 v) { return static_cast<float>(v); }
__device__ inline void store(float* at, float v) { *at = v; }
__device__ inline void store(__half* at, float v) { *at = __float2half_rn(v); }
__device__ inline void store(hip_bfloat16* at, float v) { *at = hip_bfloat16(v); }  // nearest even

// The (channel, tile) of this thread. Consecutive threads take consecutive tiles for NCHW images
// (adjacent along a row; V and M are tiles-fastest) and consecutive channels for NHWC ones
// (adjacent in a pixel; V and M are channels-fastest).
struct Slot {
  int channel;
  long long tile;
};

// Which channels and tiles a block takes. Blocks run in index order, so the blocks that share
// memory lines should be neighbours: tiles-fastest (a 2D grid, tile groups along x) for NCHW,
// channels-fastest (a 1D grid) for NHWC, whose V and M rows hold the channels of one tile.
struct BlockOrigin {
  int channel;
  long long tile;
};

template <bool channels_fastest>
__device__ inline BlockOrigin block_origin(const TileGrid& g) {
  if constexpr (channels_fastest) {
    const int groups = (g.channels + kBlockChannels - 1) / kBlockChannels;
    return {static_cast<int>(blockIdx.x % groups) * kBlockChannels, static_cast<long long>(blockIdx.x / groups) * kBlockTiles};
  } else {
    return {static_cast<int>(blockIdx.y) * kBlockChannels, static_cast<long long>(blockIdx.x) * kBlockTiles};
  }
}

template <Layout order>
__device__ inline Slot thread_slot(const BlockOrigin& b) {
  const int t = static_cast<int>(threadIdx.x);
  const int c = order == Layout::nchw ? t / kBlockTiles : t % kBlockChannels;
  const int p = order == Layout::nchw ? t % kBlockTiles : t / kBlockChannels;
  return {b.channel + c, b.tile + p};
}

__device__ inline bool in_range(const Slot& s, const TileGrid& g) { return s.channel < g.channels && s.tile < g.tiles; }

struct TileOrigin {
  int image, row, col;  // first output pixel of the tile; its input patch starts at (row - pad, col - pad)
};

__device__ inline TileOrigin tile_origin(const TileGrid& g, long long tile, int m) {
  const long long per_image = static_cast<long long>(g.tiles_h) * g.tiles_w;
  const int image = static_cast<int>(tile / per_image);
  const int rest = static_cast<int>(tile - image * per_image);
  return {image, rest / g.tiles_w * m, rest % g.tiles_w * m};
}

// Element (row + i, col + j) of one channel of an image tensor is at first + i * row_step +
// j * col_step. make_tile_grid keeps every tensor below 2^31 elements, so 32-bit offsets do, and
// a thread computes one product chain per patch instead of one per element. `first` may lie
// before the tensor (a padded patch); only offsets inside the image are read.
struct PatchWalk {
  int first, row_step, col_step;
  __device__ int at(int i, int j) const { return first + i * row_step + j * col_step; }
};

template <Layout layout>
__device__ inline PatchWalk patch_walk(int image, int channel, int row, int col, int channels, int height, int width) {
  if constexpr (layout == Layout::nchw) {
    return {((image * channels + channel) * height + row) * width + col, width, 1};
  } else {
    return {((image * height + row) * width + col) * channels + channel, width * channels, channels};
  }
}

// Visits the n x n input patch of channel `channel` of the tile at `o`: element(e, inside, at) for
// e = i * n + j, with `at` the element's offset in x where `inside` (false outside the image,
// which is the padding, and everywhere when !valid).
template <int n, Layout layout, class Element>
__device__ inline void walk_patch(const TileGrid& g, const TileOrigin& o, int channel, bool valid, Element&& element) {
  const int top = o.row - g.pad, left = o.col - g.pad;
  const PatchWalk walk = patch_walk<layout>(o.image, channel, top, left, g.channels, g.height, g.width);
  if (valid && top >= 0 && left >= 0 && top + n <= g.height && left + n <= g.width) {  // most tiles: no checks
#pragma unroll
    for (int e = 0; e < n * n; ++e) element(e, true, walk.at(e / n, e % n));
    return;
  }
#pragma unroll
  for (int i = 0; i < n; ++i) {
    const bool row_inside = valid && top + i >= 0 && top + i < g.height;
#pragma unroll
    for (int j = 0; j < n; ++j) element(i * n + j, row_inside && left + j >= 0 && left + j < g.width, walk.at(i, j));
  }
}

// The n x n input patch of one channel as float, zero where walk_patch says outside.
template <int n, Layout layout, typename TIn>
__device__ inline void load_patch(const TIn* __restrict__ x, const TileGrid& g, const TileOrigin& o, int channel,
                                  bool valid, float d[n * n]) {
  walk_patch<n, layout>(g, o, channel, valid, [&](int e, bool inside, int at) { d[e] = inside ? to_float(x[at]) : 0.0f; });
}

// U[xi][k][c] = (G g G^T)[xi] for filter f = k * C + c, one filter per thread.
template <class Transform, typename TU>
__device__ void filter_transform_tiles(const float* __restrict__ w, TU* __restrict__ U, int K, int C) {
  constexpr int r = Transform::r, n = Transform::n;
  const long long filters = static_cast<long long>(K) * C;
  const long long f = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (f >= filters) return;
  float g[r * r];
#pragma unroll
  for (int i = 0; i < r * r; ++i) g[i] = w[f * (r * r) + i];
  float u[n * n];
  Transform::filter_2d(g, u);
#pragma unroll
  for (int xi = 0; xi < n * n; ++xi) store(U + xi * filters + f, u[xi]);
}

// V[xi][c][p] (NCHW) or V[xi][p][c] (NHWC) = (B^T d B)[xi] for the input patch d of channel c,
// tile p: each layout's V keeps the image's fastest index, so consecutive threads read and write
// consecutive addresses (the GEMM reads either order).
template <class Transform, Layout layout, typename TIn, typename TV>
__device__ void input_transform_tiles(const TIn* __restrict__ x, TV* __restrict__ V, const TileGrid& g) {
  constexpr int m = Transform::m, n = Transform::n;
  const Slot at = thread_slot<layout>(block_origin<layout == Layout::nhwc>(g));
  float v[n * n];
  {
    float d[n * n];
    load_patch<n, layout>(x, g, tile_origin(g, at.tile, m), at.channel, in_range(at, g), d);
    Transform::input_2d(d, v);
  }
  if (!in_range(at, g)) return;
  const long long plane = static_cast<long long>(g.channels) * g.tiles;  // one xi of V
  const long long base = layout == Layout::nchw ? static_cast<long long>(at.channel) * g.tiles + at.tile
                                                : at.tile * g.channels + at.channel;
#pragma unroll
  for (int xi = 0; xi < n * n; ++xi) store(V + xi * plane + base, v[xi]);
}

// y = A^T M A (+ bias[k], then ReLU) for channel k, tile p; only pixels inside the output. M is
// [xi][k][p] for NCHW images and [xi][p][k] for NHWC ones, the order of the image it writes.
template <class Transform, Layout layout, typename TOut>
__device__ void output_transform_tiles(const float* __restrict__ M, TOut* __restrict__ y, const float* __restrict__ bias,
                                       int relu, const TileGrid& g) {
  constexpr int m = Transform::m, n = Transform::n;
  const Slot at = thread_slot<layout>(block_origin<layout == Layout::nhwc>(g));
  if (!in_range(at, g)) return;
  const long long plane = static_cast<long long>(g.channels) * g.tiles;  // one xi of M
  const long long base = layout == Layout::nchw ? static_cast<long long>(at.channel) * g.tiles + at.tile
                                                : at.tile * g.channels + at.channel;
  float mm[n * n];
#pragma unroll
  for (int xi = 0; xi < n * n; ++xi) mm[xi] = M[xi * plane + base];

  float out[m * m];
  Transform::output_2d(mm, out);
  const float b = bias ? bias[at.channel] : 0.0f;
  const TileOrigin o = tile_origin(g, at.tile, m);
  const PatchWalk walk = patch_walk<layout>(o.image, at.channel, o.row, o.col, g.channels, g.out_height, g.out_width);
#pragma unroll
  for (int i = 0; i < m; ++i) {
#pragma unroll
    for (int j = 0; j < m; ++j) {
      if (o.row + i >= g.out_height || o.col + j >= g.out_width) continue;  // clipped border tile
      float value = out[i * m + j] + b;
      if (relu) value = fmaxf(value, 0.0f);
      store(y + walk.at(i, j), value);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Host side: the grid of one convolution (launching: transform_launch.hpp).

// False for sizes no launcher accepts: negative counts, an empty image, negative padding, no
// output pixel, or a grid beyond the launch limits.
inline bool make_tile_grid(int m, int r, int N, int channels, int H, int W, int pad, TileGrid& g) {
  if (N < 0 || channels < 0 || H < 1 || W < 1 || pad < 0 || pad > INT_MAX / 4) return false;
  const long long out_h = static_cast<long long>(H) + 2LL * pad - r + 1;
  const long long out_w = static_cast<long long>(W) + 2LL * pad - r + 1;
  if (out_h < 1 || out_w < 1 || out_h > INT_MAX || out_w > INT_MAX) return false;
  const long long pixels = static_cast<long long>(H) * W > out_h * out_w ? static_cast<long long>(H) * W : out_h * out_w;
  if (pixels > INT_MAX || static_cast<long long>(N) * channels * pixels > INT_MAX) return false;  // 32-bit offsets
  const long long tiles_h = (out_h + m - 1) / m, tiles_w = (out_w + m - 1) / m;
  const long long tiles = static_cast<long long>(N) * tiles_h * tiles_w;
  if ((tiles + kBlockTiles - 1) / kBlockTiles > INT_MAX || (channels + kBlockChannels - 1) / kBlockChannels > 65535)
    return false;
  g = {N, channels, H, W, pad, static_cast<int>(out_h), static_cast<int>(out_w), static_cast<int>(tiles_h),
       static_cast<int>(tiles_w), tiles};
  return true;
}

// Blocks of the filter transform (one filter per thread), and of the tile transforms.
inline unsigned filter_blocks(long long filters) {
  return static_cast<unsigned>((filters + kBlockThreads - 1) / kBlockThreads);
}

// The grid of block_origin<channels_fastest>; the channels-fastest one can exceed the launch limit
// for huge shapes (launchers check fits_channels_fastest_grid first).
template <bool channels_fastest>
inline dim3 tile_blocks(const TileGrid& g) {
  const long long tile_groups = (g.tiles + kBlockTiles - 1) / kBlockTiles,
                  channel_groups = (g.channels + kBlockChannels - 1) / kBlockChannels;
  if constexpr (channels_fastest) return dim3(static_cast<unsigned>(tile_groups * channel_groups));
  return dim3(static_cast<unsigned>(tile_groups), static_cast<unsigned>(channel_groups));
}

inline bool fits_channels_fastest_grid(const TileGrid& g) {
  return (g.tiles + kBlockTiles - 1) / kBlockTiles * ((g.channels + kBlockChannels - 1) / kBlockChannels) <= INT_MAX;
}

}  // namespace nova::kernels
