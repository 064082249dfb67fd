// The tile loops of the Winograd transform kernels, written once for every transform: each
// generated <name>_kernels.hip binds them to its transform (a type with m, r, n, input_2d,
// filter_2d and output_2d, e.g. nova::generated::f6x3_nova::Transform) in __global__ kernels and
// host launchers (transform_launch.hpp). Layouts: transform_registry_gpu.hpp. HIP source; nvcc
// reads it through hip_compat.h. A CPU test defines NOVA_KERNEL_EMULATION and supplies the GPU
// built-ins itself, to run these very loops without a GPU.
//
// A block of kBlockThreads threads handles kBlockChannels channels x a rectangle of tiles: band_rows
// consecutive tile rows (image * tH + th, possibly spanning images) x band_tiles consecutive tiles of
// each row. The input transform stages the block's input region in shared memory once (coalesced,
// 16-byte loads along the channels for NHWC), then each thread transforms (channel, tile) items
// from shared memory in fp32 registers and writes V tiles-fastest. The output transform reads M
// tiles-fastest, transforms, stages the output pixels in shared memory, and writes them as rows
// (NCHW) or channel vectors (NHWC, 16-byte stores). Threads cooperate only through shared memory
// and __syncthreads(), so nothing depends on the wave size (32 on NVIDIA and RDNA wave32, 64 on
// CDNA).
#pragma once

#include "nova/runtime/hd.hpp"
#ifndef NOVA_KERNEL_EMULATION
#include "nova/runtime/hip_compat.h"
#endif

#include <climits>

namespace nova::runtime {

enum class Layout { nchw, nhwc };

inline constexpr int kBlockChannels = 16;  // 32 bytes of fp16 channels per NHWC pixel: whole sectors
inline constexpr int kBlockThreads = 256;
inline constexpr int kMaxBlockTiles = 32;  // tiles of one block (band_rows x band_tiles)
inline constexpr int kStageBytes = 40960;  // shared memory of one block, in the image's element type
inline constexpr int kLoadBatch = 4;       // loads each thread issues before it waits for the first

// Where the tiles of one convolution lie, and how blocks cover them; built on the host by the
// launchers (make_tile_grid), passed by value.
struct TileGrid {
  int images;                 // N
  int channels;               // C for the input transform, K for the output transform
  int height, width, pad;     // input image and its zero padding on every side
  int out_height, out_width;  // H + 2 pad - r + 1, W + 2 pad - r + 1
  int tiles_h, tiles_w;       // ceil(out_height / m), ceil(out_width / m)
  long long tiles;            // P = images * tiles_h * tiles_w
  int tile_rows;              // images * tiles_h
  int band_rows, band_tiles;  // tiles of one block: band_rows tile rows x band_tiles tiles of a row
  int segments;               // blocks along one tile row: ceil(tiles_w / band_tiles)
};

// ---------------------------------------------------------------------------------------------
// Device side.

__device__ inline float to_float(float v) { return v; }
__device__ inline float to_float(__half v) { return __half2float(v); }
__device__ inline void store(float* at, float v) { *at = v; }
__device__ inline void store(__half* at, float v) { *at = __float2half_rn(v); }

// 16 bytes of T: one vector load or store.
template <typename T>
struct alignas(16) Pack16 {
  T v[16 / sizeof(T)];
};

template <typename T>
__device__ inline bool aligned16(const T* p) {
  return reinterpret_cast<unsigned long long>(p) % 16 == 0;
}

template <Layout layout>
__device__ inline long long pixel_offset(int image, int channel, int row, int col, int channels, int height, int width) {
  if constexpr (layout == Layout::nchw) {
    return ((static_cast<long long>(image) * channels + channel) * height + row) * width + col;
  } else {
    return ((static_cast<long long>(image) * height + row) * width + col) * channels + channel;
  }
}

// The first channel, tile row and tile (within its row) of this block.
struct BlockTiles {
  int channel, tile_row, tile;
};

__device__ inline BlockTiles block_tiles(const TileGrid& g) {
  const int bx = static_cast<int>(blockIdx.x);
  return {static_cast<int>(blockIdx.y) * kBlockChannels, bx / g.segments * g.band_rows, bx % g.segments * g.band_tiles};
}

// One (channel, tile) of the block, tiles fastest: consecutive threads take consecutive tiles of a
// row, so V and M (tiles-fastest) are read and written in runs.
struct Item {
  int c, band, t;  // channel, tile row and tile within the block
};

__device__ inline Item item_at(int item, const TileGrid& g) {
  const int rest = item / g.band_tiles;
  return {rest / g.band_rows, rest % g.band_rows, item - rest * g.band_tiles};
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

// V[xi][c][p] = (B^T d B)[xi] for the input patch d of channel c, tile p.
template <class Transform, Layout layout, typename TIn, typename TV>
__device__ void input_transform_tiles(const TIn* __restrict__ x, TV* __restrict__ V, const TileGrid& g) {
  constexpr int m = Transform::m, n = Transform::n;
  // Per channel: band_rows bands of n input rows x cols columns, in the image's type.
  __shared__ Pack16<float> stage_bytes[kStageBytes / 16];
  TIn* const stage = reinterpret_cast<TIn*>(stage_bytes);
  const BlockTiles at = block_tiles(g);
  const int tid = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  const int cols = (g.band_tiles - 1) * m + n;
  const int band_floats = n * cols, channel_floats = g.band_rows * band_floats;
  const int col0 = at.tile * m - g.pad;  // image column of the region's first column

  // The image row of row i of band b, or -1 outside the image (or past the last tile row).
  const auto image_row = [&](int band, int i, int& image) {
    const int R = at.tile_row + band;
    if (R >= g.tile_rows) return -1;
    image = R / g.tiles_h;
    const int h = (R - image * g.tiles_h) * m - g.pad + i;
    return h >= 0 && h < g.height ? h : -1;
  };

  if constexpr (layout == Layout::nhwc) {
    // Pixels of the region, channels fastest: one 16-byte vector holds 16 / sizeof(TIn) channels.
    constexpr int per_vector = 16 / static_cast<int>(sizeof(TIn));
    constexpr int vectors = kBlockChannels / per_vector;  // per pixel
    const int pixels = g.band_rows * band_floats;
    if (g.channels % per_vector == 0 && aligned16(x)) {
      for (int base = tid; base < pixels * vectors; base += threads * kLoadBatch) {
        Pack16<TIn> p[kLoadBatch];
#pragma unroll
        for (int b = 0; b < kLoadBatch; ++b) {  // every load first, then every shared-memory store
          const int e = base + b * threads;
          const int u = e % vectors, pixel = e / vectors;
          const int col = pixel % cols, row = pixel / cols;  // row = band * n + i
          const int band = row / n, i = row - band * n;
          const int c = at.channel + u * per_vector, w = col0 + col;
          int image = 0;
          const int h = e < pixels * vectors ? image_row(band, i, image) : -1;
          if (h >= 0 && w >= 0 && w < g.width && c < g.channels)
            p[b] = *reinterpret_cast<const Pack16<TIn>*>(
                x + pixel_offset<layout>(image, c, h, w, g.channels, g.height, g.width));
          else
            for (int k = 0; k < per_vector; ++k) p[b].v[k] = TIn(0.0f);
        }
#pragma unroll
        for (int b = 0; b < kLoadBatch; ++b) {
          const int e = base + b * threads;
          if (e >= pixels * vectors) break;
          const int u = e % vectors, pixel = e / vectors;
#pragma unroll
          for (int k = 0; k < per_vector; ++k) stage[(u * per_vector + k) * channel_floats + pixel] = p[b].v[k];
        }
      }
    } else {
      for (int e = tid; e < pixels * kBlockChannels; e += threads) {
        const int k = e % kBlockChannels, pixel = e / kBlockChannels;
        const int col = pixel % cols, row = pixel / cols;
        const int band = row / n, i = row - band * n;
        const int c = at.channel + k, w = col0 + col;
        int image = 0;
        const int h = image_row(band, i, image);
        const bool inside = h >= 0 && w >= 0 && w < g.width && c < g.channels;
        stage[k * channel_floats + pixel] =
            inside ? x[pixel_offset<layout>(image, c, h, w, g.channels, g.height, g.width)] : TIn(0.0f);
      }
    }
  } else {
    // Rows of the region (channel, band, i), columns fastest: consecutive threads, consecutive pixels.
    const int lanes = cols < threads ? cols : threads, per_pass = threads / lanes;
    const int lane = tid % lanes, first = tid / lanes;
    const int rows = kBlockChannels * g.band_rows * n;
    if (first < per_pass) {
      for (int col = lane; col < cols; col += lanes) {
        const int w = col0 + col;
        for (int base = first; base < rows; base += per_pass * kLoadBatch) {
          TIn value[kLoadBatch];
#pragma unroll
          for (int b = 0; b < kLoadBatch; ++b) {  // every load first, then every shared-memory store
            const int row = base + b * per_pass;
            const int c_band = row / n, i = row - c_band * n;
            const int k = c_band / g.band_rows, band = c_band - k * g.band_rows;
            const int c = at.channel + k;
            int image = 0;
            const int h = row < rows && c < g.channels ? image_row(band, i, image) : -1;
            const bool inside = h >= 0 && w >= 0 && w < g.width;
            value[b] = inside ? x[pixel_offset<layout>(image, c, h, w, g.channels, g.height, g.width)] : TIn(0.0f);
          }
#pragma unroll
          for (int b = 0; b < kLoadBatch; ++b) {
            const int row = base + b * per_pass;
            if (row < rows) stage[row * cols + col] = value[b];
          }
        }
      }
    }
  }
  __syncthreads();

  const long long plane = static_cast<long long>(g.channels) * g.tiles;  // one xi of V
  const int items = kBlockChannels * g.band_rows * g.band_tiles;
  for (int item = tid; item < items; item += threads) {
    const Item it = item_at(item, g);
    const int c = at.channel + it.c, R = at.tile_row + it.band, tile = at.tile + it.t;
    if (c >= g.channels || R >= g.tile_rows || tile >= g.tiles_w) continue;
    const TIn* patch = stage + it.c * channel_floats + it.band * band_floats + it.t * m;
    float d[n * n];
#pragma unroll
    for (int i = 0; i < n; ++i) {
#pragma unroll
      for (int j = 0; j < n; ++j) d[i * n + j] = to_float(patch[i * cols + j]);
    }
    float v[n * n];
    Transform::input_2d(d, v);
    TV* out = V + static_cast<long long>(c) * g.tiles + static_cast<long long>(R) * g.tiles_w + tile;
#pragma unroll
    for (int xi = 0; xi < n * n; ++xi) store(out + xi * plane, v[xi]);
  }
}

// y = A^T M A (+ bias[k], then ReLU) for channel k, tile p; only pixels inside the output.
template <class Transform, Layout layout, typename TOut>
__device__ void output_transform_tiles(const float* __restrict__ M, TOut* __restrict__ y, const float* __restrict__ bias,
                                       int relu, const TileGrid& g) {
  constexpr int m = Transform::m, n = Transform::n;
  // Per channel: band_rows bands of m output rows x cols columns, in the output's type (rounded as
  // the store would round them).
  __shared__ Pack16<float> stage_bytes[kStageBytes / 16];
  TOut* const stage = reinterpret_cast<TOut*>(stage_bytes);
  const BlockTiles at = block_tiles(g);
  const int tid = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  const int cols = g.band_tiles * m;
  const int band_floats = m * cols, channel_floats = g.band_rows * band_floats;

  const long long plane = static_cast<long long>(g.channels) * g.tiles;  // one xi of M
  const int items = kBlockChannels * g.band_rows * g.band_tiles;
  for (int item = tid; item < items; item += threads) {
    const Item it = item_at(item, g);
    const int k = at.channel + it.c, R = at.tile_row + it.band, tile = at.tile + it.t;
    if (k >= g.channels || R >= g.tile_rows || tile >= g.tiles_w) continue;
    const float* in = M + static_cast<long long>(k) * g.tiles + static_cast<long long>(R) * g.tiles_w + tile;
    float mm[n * n];
#pragma unroll
    for (int xi = 0; xi < n * n; ++xi) mm[xi] = in[xi * plane];
    float out[m * m];
    Transform::output_2d(mm, out);
    const float b = bias ? bias[k] : 0.0f;
    TOut* tile_out = stage + it.c * channel_floats + it.band * band_floats + it.t * m;
#pragma unroll
    for (int i = 0; i < m; ++i) {
#pragma unroll
      for (int j = 0; j < m; ++j) {
        float value = out[i * m + j] + b;
        if (relu) value = fmaxf(value, 0.0f);
        store(tile_out + i * cols + j, value);
      }
    }
  }
  __syncthreads();

  // The output row of row i of band b, or -1 past the output (or past the last tile row).
  const auto output_row = [&](int band, int i, int& image) {
    const int R = at.tile_row + band;
    if (R >= g.tile_rows) return -1;
    image = R / g.tiles_h;
    const int h = (R - image * g.tiles_h) * m + i;
    return h < g.out_height ? h : -1;
  };
  const int col0 = at.tile * m;  // output column of the stage's first column

  if constexpr (layout == Layout::nhwc) {
    constexpr int per_vector = 16 / static_cast<int>(sizeof(TOut));
    constexpr int vectors = kBlockChannels / per_vector;  // per pixel
    const int pixels = g.band_rows * band_floats;
    if (g.channels % per_vector == 0 && aligned16(y)) {
      for (int e = tid; e < pixels * vectors; e += threads) {
        const int u = e % vectors, pixel = e / vectors;
        const int col = pixel % cols, row = pixel / cols;
        const int band = row / m, i = row - band * m;
        const int k = at.channel + u * per_vector, w = col0 + col;
        int image = 0;
        const int h = output_row(band, i, image);
        if (h < 0 || w >= g.out_width || k >= g.channels) continue;
        Pack16<TOut> p;
#pragma unroll
        for (int q = 0; q < per_vector; ++q) p.v[q] = stage[(u * per_vector + q) * channel_floats + pixel];
        *reinterpret_cast<Pack16<TOut>*>(y + pixel_offset<layout>(image, k, h, w, g.channels, g.out_height, g.out_width)) =
            p;
      }
    } else {
      for (int e = tid; e < pixels * kBlockChannels; e += threads) {
        const int q = e % kBlockChannels, pixel = e / kBlockChannels;
        const int col = pixel % cols, row = pixel / cols;
        const int band = row / m, i = row - band * m;
        const int k = at.channel + q, w = col0 + col;
        int image = 0;
        const int h = output_row(band, i, image);
        if (h < 0 || w >= g.out_width || k >= g.channels) continue;
        y[pixel_offset<layout>(image, k, h, w, g.channels, g.out_height, g.out_width)] = stage[q * channel_floats + pixel];
      }
    }
  } else {
    const int lanes = cols < threads ? cols : threads, per_pass = threads / lanes;
    const int lane = tid % lanes, first = tid / lanes;
    const int rows = kBlockChannels * g.band_rows * m;
    if (first < per_pass) {
      for (int row = first; row < rows; row += per_pass) {
        const int c_band = row / m, i = row - c_band * m;
        const int q = c_band / g.band_rows, band = c_band - q * g.band_rows;
        const int k = at.channel + q;
        int image = 0;
        const int h = k < g.channels ? output_row(band, i, image) : -1;
        if (h < 0) continue;
        for (int col = lane; col < cols; col += lanes) {
          const int w = col0 + col;
          if (w >= g.out_width) break;
          y[pixel_offset<layout>(image, k, h, w, g.channels, g.out_height, g.out_width)] = stage[row * cols + col];
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Host side: the grid of one convolution (launching: transform_launch.hpp).

// Whether band_rows x band_tiles tiles fit one block's stage (input region and output pixels) with
// elements of element_bytes.
template <class Transform>
constexpr bool block_fits(int band_rows, int band_tiles, int element_bytes) {
  constexpr int m = Transform::m, n = Transform::n;
  const long long per_channel = kStageBytes / (kBlockChannels * element_bytes);
  const long long input = static_cast<long long>(band_rows) * n * ((band_tiles - 1) * m + n);
  const long long output = static_cast<long long>(band_rows) * m * band_tiles * m;
  return band_rows * band_tiles <= kMaxBlockTiles && input <= per_channel && output <= per_channel;
}

// False for sizes no launcher accepts: negative counts, an empty image, negative padding, no
// output pixel, or a grid beyond the launch limits. element_bytes: the size of the image's element
// (the kernels stage it in shared memory); the grid of a 4-byte type also serves a 2-byte one.
template <class Transform>
inline bool make_tile_grid(int N, int channels, int H, int W, int pad, TileGrid& g, int element_bytes = 4) {
  static_assert(block_fits<Transform>(1, 1, 4), "one tile must fit a block's stage");
  if (element_bytes != 2 && element_bytes != 4) return false;
  if (N < 0 || channels < 0 || H < 1 || W < 1 || pad < 0 || pad > INT_MAX / 4) return false;
  const long long out_h = static_cast<long long>(H) + 2LL * pad - Transform::r + 1;
  const long long out_w = static_cast<long long>(W) + 2LL * pad - Transform::r + 1;
  if (out_h < 1 || out_w < 1 || out_h > INT_MAX || out_w > INT_MAX) return false;
  const long long tiles_h = (out_h + Transform::m - 1) / Transform::m, tiles_w = (out_w + Transform::m - 1) / Transform::m;
  const long long tiles = static_cast<long long>(N) * tiles_h * tiles_w;
  const long long tile_rows = static_cast<long long>(N) * tiles_h;
  if (tile_rows > INT_MAX || (channels + kBlockChannels - 1) / kBlockChannels > 65535) return false;
  // Tiles of a row: as many as fit, split evenly over the row's blocks; then as many rows as fit.
  int band_tiles = static_cast<int>(tiles_w < kMaxBlockTiles ? tiles_w : kMaxBlockTiles);
  while (band_tiles > 1 && !block_fits<Transform>(1, band_tiles, element_bytes)) --band_tiles;
  const long long segments = (tiles_w + band_tiles - 1) / band_tiles;
  band_tiles = static_cast<int>((tiles_w + segments - 1) / segments);
  int band_rows = 1;
  while (band_rows < tile_rows && block_fits<Transform>(band_rows + 1, band_tiles, element_bytes)) ++band_rows;
  if ((tile_rows + band_rows - 1) / band_rows * segments > INT_MAX) return false;
  g = {N,
       channels,
       H,
       W,
       pad,
       static_cast<int>(out_h),
       static_cast<int>(out_w),
       static_cast<int>(tiles_h),
       static_cast<int>(tiles_w),
       tiles,
       static_cast<int>(tile_rows),
       band_rows,
       band_tiles,
       static_cast<int>(segments)};
  return true;
}

// Blocks of the filter transform (one filter per thread), and of the tile transforms.
inline unsigned filter_blocks(long long filters) {
  return static_cast<unsigned>((filters + kBlockThreads - 1) / kBlockThreads);
}

inline dim3 tile_blocks(const TileGrid& g) {
  const long long bands = (static_cast<long long>(g.tile_rows) + g.band_rows - 1) / g.band_rows;
  return dim3(static_cast<unsigned>(bands * g.segments),
              static_cast<unsigned>((g.channels + kBlockChannels - 1) / kBlockChannels));
}

}  // namespace nova::runtime
