// The tile loops of the Winograd transform kernels, written once for every transform: each
// generated <name>_kernels.hip binds them to its transform (a type with m, r, n, input_2d,
// filter_2d and output_2d, e.g. nova::generated::f6x3_nova::Transform) in __global__ kernels and
// host launchers (transform_launch.hpp). Layouts: transform_registry_gpu.hpp. HIP source; nvcc
// reads it through hip_compat.h. A CPU test defines NOVA_KERNEL_EMULATION and supplies the GPU
// built-ins itself, to run these very loops without a GPU.
//
// A block of kBlockThreads threads handles kBlockChannels channels x kBlockTiles tiles (NHWC) or
// kNchwBlockChannels x kNchwBlockTiles (NCHW), one (channel, tile) per thread, all of its transform
// in fp32 registers. Threads never cooperate, so nothing depends on the wave size (32 on NVIDIA and
// RDNA wave32, 64 on CDNA).
#pragma once

#include "nova/kernels/hd.hpp"
#include "nova/kernels/kernel_table.hpp"
#ifndef NOVA_KERNEL_EMULATION
#include "nova/kernels/hip_compat.h"
#endif

#include <climits>
#include <type_traits>

namespace nova::kernels {

// Blocks give a warp one tile's 32 consecutive channels (NHWC) or one channel's 32 consecutive tiles
// (NCHW), so that each of its 2-byte accesses to a V or M position is one 64-byte L2 request, and a
// warp of channel pairs one 128-byte request (a warp over two tiles or channels made two requests of
// half the size, and the transforms were bound by L2 requests: docs/performance.md, "NCHW transform
// blocks of 32 tiles a channel" and "NHWC transform blocks of one tile a warp").
inline constexpr int kBlockChannels = 32;
inline constexpr int kBlockTiles = 8;
inline constexpr int kBlockThreads = kBlockChannels * kBlockTiles;
inline constexpr int kNchwBlockTiles = 32;
inline constexpr int kNchwBlockChannels = kBlockThreads / kNchwBlockTiles;

// Where the tiles of one convolution lie; built on the host by the launchers, passed by value.
struct TileGrid {
  int images;                 // N
  int channels;               // C for the input transform, K for the output transform
  int height, width, pad;     // input image and its zero padding on every side
  int out_height, out_width;  // H + 2 pad - r + 1, W + 2 pad - r + 1
  int tiles_h, tiles_w;       // ceil(out_height / m), ceil(out_width / m)
  long long tiles;            // P = images * tiles_h * tiles_w
  int staged_output;          // non-zero: the NCHW output through shared memory where it can (stage_nchw_output)
};

// ---------------------------------------------------------------------------------------------
// Device side.

__device__ inline float to_float(float v) { return v; }
__device__ inline float to_float(__half v) { return __half2float(v); }
__device__ inline float to_float(hip_bfloat16 v) { return static_cast<float>(v); }
__device__ inline void store(float* at, float v) { *at = v; }
__device__ inline void store(__half* at, float v) { *at = __float2half_rn(v); }
__device__ inline void store(hip_bfloat16* at, float v) { *at = hip_bfloat16(v); }  // nearest even

// The Storage (kernel_table.hpp) of an element type.
template <typename T>
constexpr Storage storage_of() {
  if constexpr (std::is_same_v<T, __half>) return Storage::f16;
  else if constexpr (std::is_same_v<T, hip_bfloat16>) return Storage::bf16;
  else return Storage::f32;
}

// Two storage elements (channels c and c + 1, or two planes) as one word (4 bytes for 16-bit types,
// 8 for fp32): __half2 for fp16 on a GPU and __nv_bfloat162 for bf16 on NVIDIA, each one register, a
// plain pair otherwise (bf16 on AMD, fp32; every type in the CPU emulation). A plain pair of bf16 took
// two registers: the bf16 fused NHWC and 3-pass pair kernels measured 3-18 % slower with it, one fused
// NCHW layer 4.5 % faster (docs/performance.md, "bf16 storage pairs in one register").
template <typename T>
struct alignas(2 * sizeof(T)) ElementPair {
  T a, b;
};
template <typename T> struct StoragePairOf {
  using type = ElementPair<T>;
};
template <typename T> using StoragePair = typename StoragePairOf<T>::type;
template <typename T> __device__ inline ElementPair<T> pair_of(T a, T b) { return {a, b}; }
template <typename T> __device__ inline T pair_element(ElementPair<T> p, int h) { return h ? p.b : p.a; }
template <typename T> __device__ inline void unpack_pair(ElementPair<T> p, float& a, float& b) {
  a = to_float(p.a), b = to_float(p.b);
}
template <typename T> __device__ inline void store_pair(T* at, float a, float b) {
  ElementPair<T> p;
  store(&p.a, a), store(&p.b, b);
  *reinterpret_cast<ElementPair<T>*>(at) = p;
}
template <typename T> __device__ inline T storage_zero() { return T(0.0f); }
template <typename T> __device__ inline T to_storage(float v) {
  T s;
  store(&s, v);
  return s;
}

#ifdef NOVA_KERNEL_EMULATION
template <typename T> inline StoragePair<T> load_word(const T* at) { return {at[0], at[1]}; }
#else
template <> struct StoragePairOf<__half> {
  using type = __half2;
};
__device__ inline __half2 pair_of(__half a, __half b) { return __halves2half2(a, b); }
__device__ inline __half pair_element(__half2 p, int h) { return h ? __high2half(p) : __low2half(p); }
template <typename T>
__device__ inline StoragePair<T> load_word(const T* __restrict__ at) { return *reinterpret_cast<const StoragePair<T>*>(at); }
__device__ inline void unpack_pair(__half2 p, float& a, float& b) {
  const float2 f = __half22float2(p);
  a = f.x, b = f.y;
}
__device__ inline void store_pair(__half* at, float a, float b) { *reinterpret_cast<__half2*>(at) = __floats2half2_rn(a, b); }
#if !defined(__HIP__)
template <> struct StoragePairOf<__nv_bfloat16> {
  using type = __nv_bfloat162;
};
__device__ inline __nv_bfloat162 pair_of(__nv_bfloat16 a, __nv_bfloat16 b) { return __halves2bfloat162(a, b); }
__device__ inline __nv_bfloat16 pair_element(__nv_bfloat162 p, int h) { return h ? __high2bfloat16(p) : __low2bfloat16(p); }
__device__ inline void unpack_pair(__nv_bfloat162 p, float& a, float& b) {
  const float2 f = __bfloat1622float2(p);
  a = f.x, b = f.y;
}
__device__ inline void store_pair(__nv_bfloat16* at, float a, float b) {
  *reinterpret_cast<__nv_bfloat162*>(at) = __floats2bfloat162_rn(a, b);
}
#endif
#endif

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

// A channels-fastest block takes `channels` channels x `tiles` tiles: kBlockChannels, or
// kPairBlockChannels where a thread takes a channel pair (the NHWC input transform, and the output
// from a 16-bit M), of kBlockTiles tiles (fewer: pair_block_tiles).
inline constexpr int kPairBlockChannels = 2 * kBlockChannels;
template <bool channels_fastest, int channels = kBlockChannels, int tiles = kBlockTiles>
__device__ inline BlockOrigin block_origin(const TileGrid& g) {
  if constexpr (channels_fastest) {
    const int groups = (g.channels + channels - 1) / channels;
    return {static_cast<int>(blockIdx.x % groups) * channels, static_cast<long long>(blockIdx.x / groups) * tiles};
  } else {
    return {static_cast<int>(blockIdx.y) * kNchwBlockChannels, static_cast<long long>(blockIdx.x) * kNchwBlockTiles};
  }
}

template <Layout order>
__device__ inline Slot thread_slot(const BlockOrigin& b) {
  const int t = static_cast<int>(threadIdx.x);
  const int c = order == Layout::nchw ? t / kNchwBlockTiles : t % kBlockChannels;
  const int p = order == Layout::nchw ? t % kNchwBlockTiles : t / kBlockChannels;
  return {b.channel + c, b.tile + p};
}

__device__ inline bool in_range(const Slot& s, const TileGrid& g) { return s.channel < g.channels && s.tile < g.tiles; }

// The input and output transforms are launched as programmatic dependents (launch_dependent_kernel,
// where they were compiled for sm_90 on: waits_for_previous_kernel): their blocks may start while the
// kernel before them in the stream finishes. Each thread waits here, after its index arithmetic and
// before its first global load or store, until that kernel has completed and its writes are visible
// (a no-op where nothing was launched so, and on AMD).
__device__ __forceinline__ void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// A barrier of one 32-thread warp (a slice of the block, which on wave64 shares its wave with
// another), ordering its shared-memory accesses. Every emulated thread runs to its next barrier before
// any continues, so there it is a block barrier; threads of other warps may be at a different count,
// which matters only for data shared across warps without a block barrier (no kernel shares any).
#ifdef NOVA_KERNEL_EMULATION
inline void warp_sync() { __syncthreads(); }
#else
__device__ inline void warp_sync() {
#if defined(__HIP__) || defined(__HIPCC__)
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
#else
  __syncwarp();
#endif
}
#endif

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

// The n x n input patch of one channel as float, element by element, zero where walk_patch says
// outside.
template <int n, Layout layout, typename TIn>
__device__ inline void load_patch_elements(const TIn* __restrict__ x, const TileGrid& g, const TileOrigin& o,
                                           int channel, bool valid, float d[n * n]) {
  walk_patch<n, layout>(g, o, channel, valid, [&](int e, bool inside, int at) { d[e] = inside ? to_float(x[at]) : 0.0f; });
}

// Channels c and c + 1 of one patch element at `at` (the second `next` elements further: 1 in NHWC,
// a plane in NCHW), zero outside the image. NHWC with C even (`word`): both in one aligned load. A
// second channel at C is read where the first is (next = 0) and its results dropped: a predicate per
// element costs the fused one-K-block kernels spills.
template <Layout layout, typename T>
__device__ inline StoragePair<T> load_channel_pair(const T* __restrict__ x, int at, int next, bool inside, bool word) {
  const T zero = storage_zero<T>();
  if (layout == Layout::nhwc && word) return inside ? load_word(x + at) : pair_of(zero, zero);
  return inside ? pair_of(x[at], x[at + next]) : pair_of(zero, zero);
}

// Whether `p` is a multiple of `bytes` (no <cstdint> here: run-time compilation has no standard
// library).
NOVA_HD inline bool aligned_to(const void* p, unsigned long long bytes) {
  return reinterpret_cast<unsigned long long>(p) % bytes == 0;
}

// `count` consecutive storage elements as one aligned load or store (count * sizeof(T) a power of two).
template <typename T, int count>
struct alignas(count * sizeof(T)) ElementRun {
  T e[count];
};

// Whether every row of the NCHW planes of `p`, `width` elements wide, starts on an aligned run of
// output_run_length(m) elements (more than one): the width a multiple of the run, `p` aligned to one.
// Tile rows m wide then go in whole runs.
template <int m, typename T>
__device__ inline bool nchw_rows_on_runs(const T* p, int width) {
  constexpr int kRun = output_run_length(m, sizeof(T));
  return kRun > 1 && width % kRun == 0 && aligned_to(p, kRun * sizeof(T));
}

// Whether NCHW patch rows of tiles m wide can be read in aligned runs (walk_patch_runs): the rows
// of x start on runs, and the padding puts each patch row's first element last in a run, so that its
// place in the run is the same for every tile (pad = 1, the 3 x 3 "same" convolution).
template <int m, typename T>
__device__ inline bool nchw_patch_runs(const T* x, const TileGrid& g) {
  return nchw_rows_on_runs<m>(x, g.width) && g.pad % output_run_length(m, sizeof(T)) == 1;
}

// Visits the n x n patch of the tile at `o` in kPlanes NCHW planes (1 or 2: channel c, and the one
// `next` elements further) where nchw_patch_runs holds: each patch row is read as the aligned runs
// covering it, a run and plane at a time (of F(4,3)'s three runs a row the compiler loads the words the
// row uses: 4 loads a row and plane, against 6 of 2 bytes element by element), a run outside the image
// zero; then element(e, first plane's, second plane's) for e = i * n + j (the first plane's twice where
// kPlanes is 1). Each run is wholly inside or outside a row, since rows start on runs.
template <int n, int m, int kPlanes, typename T, class Element>
__device__ __forceinline__ void walk_patch_runs(const T* __restrict__ x, const TileGrid& g, const TileOrigin& o, int c,
                                                bool valid, int next, Element&& element) {
  static_assert(kPlanes == 1 || kPlanes == 2, "one plane or a pair");
  constexpr int kRun = output_run_length(m, sizeof(T)), kFirst = kRun - 1, kRuns = (kFirst + n + kRun - 1) / kRun;
  static_assert(kRun % 2 == 0, "runs of whole storage pairs");
  // A run as storage pairs, one register each for 16-bit types, so that an element is a half of its
  // register, which the conversion to float selects; runs of single 16-bit elements cost a byte
  // permute an element (docs/performance.md, "Fused v5.9").
  using Word = StoragePair<T>;
  using Run = ElementRun<Word, kRun / 2>;
  const int top = o.row - g.pad, first = o.col - g.pad - kFirst;  // first: a multiple of kRun
  const PatchWalk walk = patch_walk<Layout::nchw>(o.image, c, top, first, g.channels, g.height, g.width);
  const T zero = storage_zero<T>();
#pragma unroll
  for (int i = 0; i < n; ++i) {
    const bool row_inside = valid && top + i >= 0 && top + i < g.height;
    Run a[kRuns], b[kPlanes == 2 ? kRuns : 1];
#pragma unroll
    for (int q = 0; q < kRuns; ++q) {
      const bool inside = row_inside && first + q * kRun >= 0 && first + q * kRun < g.width;
      const T* at = x + walk.at(i, q * kRun);
      if (inside) {
        a[q] = *reinterpret_cast<const Run*>(at);
        if constexpr (kPlanes == 2) b[q] = *reinterpret_cast<const Run*>(at + next);
      } else {
#pragma unroll
        for (int w = 0; w < kRun / 2; ++w) {
          a[q].e[w] = pair_of(zero, zero);
          if constexpr (kPlanes == 2) b[q].e[w] = pair_of(zero, zero);
        }
      }
    }
#pragma unroll
    for (int j = 0; j < n; ++j) {
      const int e = kFirst + j, q = e / kRun, w = e % kRun / 2, h = e % 2;
      const T from_first_plane = pair_element(a[q].e[w], h);
      element(i * n + j, from_first_plane, kPlanes == 2 ? pair_element(b[q].e[w], h) : from_first_plane);
    }
  }
}

// The n x n patch of one channel of the tile at `o` as float: from an NCHW image where
// nchw_patch_runs holds in runs (walk_patch_runs), else element by element (load_patch_elements).
template <int n, int m, Layout layout, typename TIn>
__device__ __forceinline__ void load_patch(const TIn* __restrict__ x, const TileGrid& g, const TileOrigin& o, int c,
                                           bool valid, float (&d)[n * n]) {
  if constexpr (layout == Layout::nchw && output_run_length(m, sizeof(TIn)) > 1) {
    if (nchw_patch_runs<m>(x, g))
      return walk_patch_runs<n, m, 1>(x, g, o, c, valid, 0, [&](int e, TIn a, TIn) { d[e] = to_float(a); });
  }
  load_patch_elements<n, layout>(x, g, o, c, valid, d);
}

// The n x n patch of channels c and c + 1 of the tile at `o` as pairs (load_channel_pair per element;
// `next`, `word` as there; NCHW images in runs where nchw_patch_runs holds); all zero where !valid.
template <int n, int m, Layout layout, typename T>
__device__ __forceinline__ void load_pair_patch(const T* __restrict__ x, const TileGrid& g, const TileOrigin& o, int c,
                                                bool valid, int next, bool word, StoragePair<T> (&raw)[n * n]) {
  if constexpr (layout == Layout::nchw && output_run_length(m, sizeof(T)) > 1) {
    if (nchw_patch_runs<m>(x, g))
      return walk_patch_runs<n, m, 2>(x, g, o, c, valid, next, [&](int e, T a, T b) { raw[e] = pair_of(a, b); });
  }
  walk_patch<n, layout>(g, o, c, valid,
                        [&](int e, bool inside, int at) { raw[e] = load_channel_pair<layout>(x, at, next, inside, word); });
}

// Both channels of a pair patch as float.
template <int nn, typename T>
__device__ __forceinline__ void unpack_pair_patch(const StoragePair<T> (&raw)[nn], float (&d0)[nn], float (&d1)[nn]) {
#pragma unroll
  for (int e = 0; e < nn; ++e) unpack_pair(raw[e], d0[e], d1[e]);
}

// V = B^T d B of both channels of a pair patch, in fp32.
template <class Transform, typename T>
__device__ __forceinline__ void transform_pair_patch(const StoragePair<T> (&raw)[Transform::n * Transform::n],
                                                     float (&v0)[Transform::n * Transform::n],
                                                     float (&v1)[Transform::n * Transform::n]) {
  constexpr int nn = Transform::n * Transform::n;
  float d0[nn], d1[nn];
  unpack_pair_patch<nn, T>(raw, d0, d1);
  Transform::input_2d(d0, v0);
  Transform::input_2d(d1, v1);
}

// The patch of channels c and c + 1 as load_pair_patch reads it, as float, for a thread that
// transforms it at once (nothing held ahead). NCHW elements are converted as they are read: packing
// one element of each plane into a pair only to unpack it again costs a byte permute a pair
// (docs/performance.md, "Fused v5.9").
template <int n, int m, Layout layout, typename T>
__device__ __forceinline__ void load_pair_patch_float(const T* __restrict__ x, const TileGrid& g, const TileOrigin& o,
                                                      int c, bool valid, int next, bool word, float (&d0)[n * n],
                                                      float (&d1)[n * n]) {
  if constexpr (layout == Layout::nchw) {
    const auto element = [&](int e, T a, T b) { d0[e] = to_float(a), d1[e] = to_float(b); };
    if constexpr (output_run_length(m, sizeof(T)) > 1) {
      if (nchw_patch_runs<m>(x, g)) return walk_patch_runs<n, m, 2>(x, g, o, c, valid, next, element);
    }
    const T zero = storage_zero<T>();
    walk_patch<n, layout>(g, o, c, valid, [&](int e, bool inside, int at) {
      element(e, inside ? x[at] : zero, inside ? x[at + next] : zero);
    });
  } else {
    StoragePair<T> raw[n * n];
    load_pair_patch<n, m, layout>(x, g, o, c, valid, next, word, raw);
    unpack_pair_patch<n * n, T>(raw, d0, d1);
  }
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

// `count` values stored as one aligned run of the storage type.
template <int count, typename T>
__device__ inline void store_run(T* at, const float* values) {
  ElementRun<T, count> run;
#pragma unroll
  for (int i = 0; i < count; ++i) store(&run.e[i], values[i]);
  *reinterpret_cast<ElementRun<T, count>*>(at) = run;
}

// Whether the input transform's threads take channel pairs: from NHWC images, on tiles up to 8 x 8
// (two channels of a 10 x 10 patch spill in fp32), and for AMD up to 6 x 6 (two bf16 channels of an
// 8 x 8 patch need scratch on gfx90a and gfx942; docs/results/amd_kernel_resources.md).
NOVA_HD constexpr bool input_in_pairs(Layout layout, int n) {
#ifdef __HIP__
  return layout == Layout::nhwc && n <= 6;
#else
  return layout == Layout::nhwc && n <= 8;
#endif
}

// Tiles a block of channel pairs takes on n x n tiles of `element_bytes` elements: kBlockTiles, or
// half as many where input_pairs_in_small_blocks says (its thread then holds one channel in storage
// precision while it transforms the other, input_transform_pairs: 160-168 registers, three blocks of
// 128 threads an SM where blocks of 256 fit one; docs/performance.md, "F(6,3) NHWC input transform in
// small blocks").
NOVA_HD constexpr int pair_block_tiles(int n, int element_bytes) {
  return input_pairs_in_small_blocks(n, element_bytes) ? kBlockTiles / 2 : kBlockTiles;
}
inline constexpr int kSmallPairBlocksPerSm = 3;  // their launch bound's blocks an SM (below)

// The threads of an input transform block.
NOVA_HD constexpr int input_block_threads(Layout layout, int n, int element_bytes) {
  return input_in_pairs(layout, n) ? kBlockChannels * pair_block_tiles(n, element_bytes) : kBlockThreads;
}

// The launch bounds the code generator emits for the NHWC input kernels of n x n tiles of
// `element_bytes` elements that input_pairs_in_small_blocks names: on NVIDIA their blocks and three
// blocks an SM, a cap of 168 registers. AMD takes no channel pairs on 8 x 8 tiles (input_in_pairs) and
// keeps the plain bound. Of the transform kernels only these and the 6 x 6 tiles' staged output
// kernels (NOVA_STAGED_OUTPUT_BOUNDS) name a count of blocks: ptxas takes even 1 as a hint (the F(4,3)
// input kernels then compile to other code), and a second bound on AMD is a waves-per-SIMD hint that
// moves registers (RDNA3's bf16 F(6,3) input kernel 96 -> 97 VGPRs, 5 -> 4 waves).
#ifdef __HIP__
#define NOVA_SMALL_PAIR_INPUT_BOUNDS(n, element_bytes) nova::kernels::kBlockThreads
#else
#define NOVA_SMALL_PAIR_INPUT_BOUNDS(n, element_bytes) \
  nova::kernels::input_block_threads(nova::kernels::Layout::nhwc, n, element_bytes), nova::kernels::kSmallPairBlocksPerSm
#endif

// From NHWC images a thread takes a channel pair of one tile (a block: kPairBlockChannels channels x
// pair_block_tiles tiles, consecutive threads on consecutive pairs): where C is even and x and V are
// aligned to a pair (kWord), one load of both channels a patch element and one store a position,
// half the load and address instructions of a channel a thread, which bound this kernel
// (docs/performance.md, "3-pass NHWC input in channel pairs").
template <class Transform, typename TIn, typename TV, bool kWord>
__device__ void input_transform_pairs(const TIn* __restrict__ x, TV* __restrict__ V, const TileGrid& g) {
  constexpr int m = Transform::m, n = Transform::n, nn = n * n;
  const BlockOrigin b = block_origin<true, kPairBlockChannels, pair_block_tiles(n, sizeof(TIn))>(g);
  const int c = b.channel + 2 * (static_cast<int>(threadIdx.x) % kBlockChannels);
  const long long tile = b.tile + static_cast<int>(threadIdx.x) / kBlockChannels;
  const bool valid = c < g.channels && tile < g.tiles, second = c + 1 < g.channels;
  // One channel at a time, in place, while the other waits in `held`: first the second channel's
  // input, then the first's output. Where the blocks are small (pair_block_tiles: 16-bit 8 x 8 tiles)
  // `held` keeps them as storage pairs (the output rounded to TV as its store would) and the loop of two
  // is not unrolled (one copy of the transform), so that two n x n patches never live in fp32 at once:
  // 160-168 registers a thread against 203-211. Elsewhere `held` is fp32 and the loop unrolled, as
  // two patches side by side were (the same code for f4x3_standard; the storage round trips measured
  // 1-5 % slower on F(4,3)).
  static_assert(sizeof(TIn) == sizeof(TV), "one block shape for both");
  constexpr bool kInStorage = pair_block_tiles(n, sizeof(TV)) < kBlockTiles;
  using Held = std::conditional_t<kInStorage, StoragePair<TV>, ElementPair<float>>;
  const auto hold = [](float low, float high) -> Held {
    if constexpr (kInStorage) return pair_of(to_storage<TV>(low), to_storage<TV>(high));
    else return {low, high};
  };
  constexpr int kHeld = (nn + 1) / 2;  // held[k]: positions 2k and 2k + 1 (an odd n x n: its last twice)
  float v[nn];
  Held held[kHeld];
  {
    StoragePair<TIn> raw[nn];
    const TileOrigin o = tile_origin(g, valid ? tile : 0, m);
    wait_for_previous_kernel();
    load_pair_patch<n, m, Layout::nhwc>(x, g, o, c, valid, second ? 1 : 0, kWord, raw);
#pragma unroll
    for (int k = 0; k < kHeld; ++k) {
      const int e = 2 * k, f = e + 1 < nn ? e + 1 : e;
      float b0, b1;
      unpack_pair(raw[e], v[e], b0);
      unpack_pair(raw[f], v[f], b1);
      held[k] = hold(b0, b1);
    }
  }
  [[maybe_unused]] constexpr int kUnroll = kInStorage ? 1 : 2;
#pragma unroll kUnroll
  for (int channel = 0; channel < 2; ++channel) {
    Transform::input_2d(v, v);
    if (channel == 1) break;
#pragma unroll
    for (int k = 0; k < kHeld; ++k) {
      const int e = 2 * k, f = e + 1 < nn ? e + 1 : e;
      const Held input = held[k];
      held[k] = hold(v[e], v[f]);
      unpack_pair(input, v[e], v[f]);
    }
  }
  if (!valid) return;
  const long long plane = static_cast<long long>(g.channels) * g.tiles;  // one xi of V
  TV* at = V + tile * g.channels + c;
#pragma unroll
  for (int xi = 0; xi < nn; ++xi) {
    float first[2];
    unpack_pair(held[xi / 2], first[0], first[1]);
    if constexpr (kWord) {
      store_pair(at + xi * plane, first[xi % 2], v[xi]);
    } else {
      store(at + xi * plane, first[xi % 2]);
      if (second) store(at + xi * plane + 1, v[xi]);
    }
  }
}

// Whether an input transform on n x n tiles takes them in pairs (input_transform_tile_pairs, a kernel
// of its own: beside the single-tile loop its registers would halve that loop's occupancy): NCHW
// images whose rows allow it (nchw_rows_in_tile_pairs), with x and V aligned to pairs.
inline bool input_in_tile_pairs(Layout layout, int n, const TileGrid& g, const void* x, const void* V, int pair_bytes) {
  return layout == Layout::nchw && nchw_rows_in_tile_pairs(n, g.tiles_w, g.width) && aligned_to(x, pair_bytes) &&
         aligned_to(V, pair_bytes);
}

// The channel and first tile of this thread's NCHW tile pair (a block: kNchwBlockChannels channels x
// 2 kNchwBlockTiles tiles, consecutive threads on consecutive pairs; tile_pair_blocks).
__device__ inline Slot tile_pair_slot() {
  return {static_cast<int>(blockIdx.y) * kNchwBlockChannels + static_cast<int>(threadIdx.x) / kNchwBlockTiles,
          (static_cast<long long>(blockIdx.x) * kNchwBlockTiles + static_cast<int>(threadIdx.x) % kNchwBlockTiles) * 2};
}

// From NCHW images (input_in_tile_pairs) a thread takes tiles p and p + 1 of one channel (tile_pair_slot). Each
// patch row of both tiles (n + m elements from column `left`, whose parity kOddLeft is the padding's)
// is read as the aligned element pairs covering it, and each position's two V elements are stored as
// one pair: about half the loads and stores of a tile a thread (docs/performance.md, "NCHW 3-pass
// transforms in whole runs").
template <class Transform, typename TIn, typename TV, bool kOddLeft>
__device__ void input_transform_tile_pair_loop(const TIn* __restrict__ x, TV* __restrict__ V, const TileGrid& g) {
  constexpr int m = Transform::m, n = Transform::n, nn = n * n;
  constexpr int kParity = kOddLeft ? 1 : 0, kPairs = (kParity + m + n - 1) / 2 + 1;  // pairs of a patch row
  const Slot pair = tile_pair_slot();
  const int c = pair.channel;
  const long long tile = pair.tile;
  const bool valid = c < g.channels && tile < g.tiles;  // tiles is even: tile + 1 < tiles too
  float v0[nn], v1[nn];
  {
    float d0[nn], d1[nn];
    const TileOrigin o = tile_origin(g, valid ? tile : 0, m);
    const int top = o.row - g.pad, first = o.col - g.pad - kParity;  // first: even
    const PatchWalk walk = patch_walk<Layout::nchw>(o.image, valid ? c : 0, top, first, g.channels, g.height, g.width);
    const bool interior = valid && top >= 0 && top + n <= g.height && first >= 0 && first + 2 * kPairs <= g.width;
    wait_for_previous_kernel();
#pragma unroll
    for (int i = 0; i < n; ++i) {
      const bool row_inside = valid && top + i >= 0 && top + i < g.height;
      float elements[2 * kPairs];
#pragma unroll
      for (int q = 0; q < kPairs; ++q) {
        const bool inside = interior || (row_inside && first + 2 * q >= 0 && first + 2 * q < g.width);
        const StoragePair<TIn> p = inside ? load_word(x + walk.at(i, 2 * q)) : pair_of(storage_zero<TIn>(), storage_zero<TIn>());
        unpack_pair(p, elements[2 * q], elements[2 * q + 1]);
      }
#pragma unroll
      for (int j = 0; j < n; ++j) d0[i * n + j] = elements[kParity + j], d1[i * n + j] = elements[kParity + m + j];
    }
    Transform::input_2d(d0, v0);
    Transform::input_2d(d1, v1);
  }
  if (!valid) return;
  const long long plane = static_cast<long long>(g.channels) * g.tiles;  // one xi of V
  TV* at = V + static_cast<long long>(c) * g.tiles + tile;
#pragma unroll
  for (int xi = 0; xi < nn; ++xi) store_pair(at + xi * plane, v0[xi], v1[xi]);
}

// The NCHW input transform in tile pairs (its kernel: KernelKind::input_tile_pairs), for either
// parity of the padding.
template <class Transform, typename TIn, typename TV>
__device__ void input_transform_tile_pairs(const TIn* __restrict__ x, TV* __restrict__ V, const TileGrid& g) {
  if (g.pad % 2 == 1)
    input_transform_tile_pair_loop<Transform, TIn, TV, true>(x, V, g);
  else
    input_transform_tile_pair_loop<Transform, TIn, TV, false>(x, V, g);
}

// V[xi][c][p] (NCHW) or V[xi][p][c] (NHWC) = (B^T d B)[xi] for the input patch d of channel c,
// tile p: each layout's V keeps the image's fastest index, so consecutive threads read and write
// consecutive addresses (the GEMM reads either order).
template <class Transform, Layout layout, typename TIn, typename TV>
__device__ void input_transform_tiles(const TIn* __restrict__ x, TV* __restrict__ V, const TileGrid& g) {
  if constexpr (input_in_pairs(layout, Transform::n)) {
    if (g.channels % 2 == 0 && aligned_to(x, sizeof(StoragePair<TIn>)) && aligned_to(V, sizeof(StoragePair<TV>)))
      input_transform_pairs<Transform, TIn, TV, true>(x, V, g);
    else
      input_transform_pairs<Transform, TIn, TV, false>(x, V, g);
    return;
  }
  constexpr int m = Transform::m, n = Transform::n;
  const Slot at = thread_slot<layout>(block_origin<layout == Layout::nhwc>(g));
  float v[n * n];
  {
    float d[n * n];
    const TileOrigin o = tile_origin(g, at.tile, m);
    wait_for_previous_kernel();
    load_patch<n, m, layout>(x, g, o, at.channel, in_range(at, g), d);
    Transform::input_2d(d, v);
  }
  if (!in_range(at, g)) return;
  const long long plane = static_cast<long long>(g.channels) * g.tiles;  // one xi of V
  const long long base = layout == Layout::nchw ? static_cast<long long>(at.channel) * g.tiles + at.tile
                                                : at.tile * g.channels + at.channel;
#pragma unroll
  for (int xi = 0; xi < n * n; ++xi) store(V + xi * plane + base, v[xi]);
}

// Whether the output transform's threads take channel pairs: on NVIDIA, from a 16-bit M (TM) of NHWC
// images, on 6 x 6 tiles (F(4,3)), where a warp's 2-byte loads fill only half a 128-byte line and the
// pairs measured 3-4 % faster at batch 32 (docs/performance.md, "F(4,3) output transform in channel
// pairs"). On 8 x 8 tiles two channels take 154 registers (+3 to +14 %), on 4 x 4 tiles halving the
// threads costs the small grids (+3 to +5 % at batch 1), and from an fp32 M 8-byte loads of 64
// positions measured slower. Not on AMD: a 64-lane wavefront's 2-byte loads already fill a line,
// and the pairs would halve gfx942's occupancy (7 to 4 waves) unmeasured.
template <typename TM>
NOVA_HD constexpr bool output_in_pairs(Layout layout, int n) {
#ifdef __HIP__
  (void)layout, (void)n;
  return false;
#else
  return sizeof(TM) == 2 && layout == Layout::nhwc && n == 6;
#endif
}

// From a 16-bit M of NHWC images a thread takes an output channel pair of one tile (a block:
// kPairBlockChannels channels x kBlockTiles tiles, consecutive threads on consecutive pairs): where K
// is even and M and y are aligned to a pair (kWord), one 4-byte load of both channels a position and
// one store of both a pixel, so that a warp's loads fill whole 128-byte lines.
template <class Transform, typename T, bool kWord>
__device__ void output_transform_pairs(const T* __restrict__ M, T* __restrict__ y, const float* __restrict__ bias,
                                       int relu, const TileGrid& g) {
  constexpr int m = Transform::m, n = Transform::n, nn = n * n;
  const BlockOrigin b = block_origin<true, kPairBlockChannels>(g);
  const int k = b.channel + 2 * (static_cast<int>(threadIdx.x) % kBlockChannels);
  const long long tile = b.tile + static_cast<int>(threadIdx.x) / kBlockChannels;
  if (k >= g.channels || tile >= g.tiles) return;
  const bool second = k + 1 < g.channels;
  const long long plane = static_cast<long long>(g.channels) * g.tiles;  // one xi of M
  const T* at = M + tile * g.channels + k;
  wait_for_previous_kernel();
  float out0[m * m], out1[m * m];
  {
    float m0[nn], m1[nn];
#pragma unroll
    for (int xi = 0; xi < nn; ++xi)
      unpack_pair(load_channel_pair<Layout::nhwc>(at + xi * plane, 0, second ? 1 : 0, true, kWord), m0[xi], m1[xi]);
    Transform::output_2d(m0, out0);
    Transform::output_2d(m1, out1);
  }
  const float b0 = bias ? bias[k] : 0.0f, b1 = bias && second ? bias[k + 1] : 0.0f;
  const TileOrigin o = tile_origin(g, tile, m);
  const PatchWalk walk = patch_walk<Layout::nhwc>(o.image, k, o.row, o.col, g.channels, g.out_height, g.out_width);
#pragma unroll
  for (int i = 0; i < m; ++i) {
#pragma unroll
    for (int j = 0; j < m; ++j) {
      if (o.row + i >= g.out_height || o.col + j >= g.out_width) continue;  // clipped border tile
      float v0 = out0[i * m + j] + b0, v1 = out1[i * m + j] + b1;
      if (relu) v0 = fmaxf(v0, 0.0f), v1 = fmaxf(v1, 0.0f);
      if constexpr (kWord) {
        store_pair(y + walk.at(i, j), v0, v1);
      } else {
        store(y + walk.at(i, j), v0);
        if (second) store(y + walk.at(i, j) + 1, v1);
      }
    }
  }
}

// Whether the NCHW output transform from a 16-bit M (elements of `element_bytes`) on tiles m wide takes
// them in pairs (output_transform_tile_pairs, a kernel of its own): where the kernel exists and every
// output row holds whole pairs (the width a multiple of 2m, so that a pair shares a row and the
// number of tiles is even), with M aligned to a pair and y to a pair's row.
inline bool output_in_tile_pairs(Layout layout, int m, const TileGrid& g, const void* M, const void* y,
                                 int element_bytes) {
  return layout == Layout::nchw && nchw_output_has_tile_pairs(m) && g.out_width % (2 * m) == 0 &&
         aligned_to(M, 2 * element_bytes) && aligned_to(y, 2 * m * element_bytes);
}

// From a 16-bit M of NCHW images (output_in_tile_pairs) a thread takes tiles p and p + 1 of one output
// channel (tile_pair_slot): one 4-byte load of both a position, so that a warp's loads fill whole
// 128-byte lines where a tile a thread fills half of one, and each output row of both tiles (2m
// elements) as one aligned store of up to 16 bytes.
template <class Transform, typename T>
__device__ void output_transform_tile_pairs(const T* __restrict__ M, T* __restrict__ y, const float* __restrict__ bias,
                                            int relu, const TileGrid& g) {
  constexpr int m = Transform::m, n = Transform::n, nn = n * n;
  static_assert(nchw_output_has_tile_pairs(m), "a row of both tiles is one store");
  const Slot pair = tile_pair_slot();
  if (pair.channel >= g.channels || pair.tile >= g.tiles) return;
  const long long plane = static_cast<long long>(g.channels) * g.tiles;  // one xi of M
  const T* at = M + static_cast<long long>(pair.channel) * g.tiles + pair.tile;
  wait_for_previous_kernel();
  float out0[m * m], out1[m * m];
  {
    float m0[nn], m1[nn];
#pragma unroll
    for (int xi = 0; xi < nn; ++xi) unpack_pair(load_word(at + xi * plane), m0[xi], m1[xi]);
    Transform::output_2d(m0, out0);
    Transform::output_2d(m1, out1);
  }
  const float b = bias ? bias[pair.channel] : 0.0f;
  const TileOrigin o = tile_origin(g, pair.tile, m);
  const PatchWalk walk = patch_walk<Layout::nchw>(o.image, pair.channel, o.row, o.col, g.channels, g.out_height,
                                                  g.out_width);
#pragma unroll
  for (int i = 0; i < m; ++i) {
    if (o.row + i >= g.out_height) continue;  // clipped bottom tile
    float row[2 * m];
#pragma unroll
    for (int j = 0; j < m; ++j) row[j] = out0[i * m + j], row[m + j] = out1[i * m + j];
#pragma unroll
    for (int j = 0; j < 2 * m; ++j) {
      row[j] += b;
      if (relu) row[j] = fmaxf(row[j], 0.0f);
    }
    store_run<2 * m>(y + walk.at(i, 0), row);
  }
}

// The m x m outputs of the tile at `slot` (+ bias[k], then ReLU): A^T M A from M, which is
// [xi][k][p] for NCHW images and [xi][p][k] for NHWC ones, the order of the image it writes; fp32, or
// (TM = 16-bit) rounded to the storage type by the GEMM, which halves the bytes both stages move
// (docs/design.md §6: the error's third rounding).
template <class Transform, Layout layout, typename TM>
__device__ __forceinline__ void output_tile(const TM* __restrict__ M, const float* __restrict__ bias, int relu,
                                            const TileGrid& g, const Slot& slot,
                                            float (&out)[Transform::m * Transform::m]) {
  constexpr int m = Transform::m, n = Transform::n;
  const long long plane = static_cast<long long>(g.channels) * g.tiles;  // one xi of M
  const long long base = layout == Layout::nchw ? static_cast<long long>(slot.channel) * g.tiles + slot.tile
                                                : slot.tile * g.channels + slot.channel;
  float mm[n * n];
#pragma unroll
  for (int xi = 0; xi < n * n; ++xi) mm[xi] = to_float(M[xi * plane + base]);
  Transform::output_2d(mm, out);
  const float b = bias ? bias[slot.channel] : 0.0f;
#pragma unroll
  for (int e = 0; e < m * m; ++e) {
    out[e] += b;
    if (relu) out[e] = fmaxf(out[e], 0.0f);
  }
}

// The NCHW output transform through shared memory (output_transform_staged): for tiles of at least
// 4 x 4 (F(2,3)'s four pixels a tile went slower: its stage at ResNet-50 512@7 6.3 -> 8.7 µs, where
// F(4,3)'s took 13.3 -> 8.3; docs/performance.md, "NCHW output rows through shared memory"), where a
// row of the output holds at most kStagedTilesW tiles, so that the rows that a channel's
// kNchwBlockTiles consecutive tiles touch (at most (kNchwBlockTiles - 1) / tiles_w + 2 tile rows, m x m
// pixels a tile) fit in staged_pixels(m) for every block; and where a block's pixels fit in the 48 KB a
// kernel may declare (not fp32 tiles from 6 x 6; 16-bit 8 x 8 ones take all of it). Measured on F(4,3)
// only; the larger tiles' staged kernels are tested, not timed.
inline constexpr int kStagedTilesW = 8;
inline constexpr int kStagedLoadsAhead = 4;
NOVA_HD constexpr int staged_pixels(int m) { return (kNchwBlockTiles + 2 * kStagedTilesW) * m * m; }
NOVA_HD constexpr bool nchw_output_staged(int m, int element_bytes) {
  return m >= 4 && element_bytes * staged_pixels(m) * kNchwBlockChannels <= 48 * 1024;
}

static_assert(nchw_output_staged(6, 2), "staged_output_in_two_blocks names staged kernels");
// The launch bounds the code generator emits for the staged output kernels that
// staged_output_in_two_blocks names: on NVIDIA two blocks an SM, a cap of 128 registers; AMD keeps the
// plain bound (its second one is a waves-per-SIMD hint, see NOVA_SMALL_PAIR_INPUT_BOUNDS).
#ifdef __HIP__
#define NOVA_STAGED_OUTPUT_BOUNDS nova::kernels::kBlockThreads
#else
#define NOVA_STAGED_OUTPUT_BOUNDS nova::kernels::kBlockThreads, 2
#endif

// From an NCHW image whose rows do not start on runs (nchw_rows_on_runs: output widths such as 7 and
// 14 for F(4,3)), a thread would store its tile pixel by pixel, and each store of a warp would touch
// a sector of every tile row it spans for 2 bytes. Instead the kNchwBlockTiles threads of a channel
// (one warp) put their tiles' pixels, rounded to the storage type, where they lie in the output rows
// that the tiles touch, image after image; then, after a warp barrier, they store those rows
// consecutive threads on consecutive pixels, every pixel where whole tile rows are the block's (tiles_w
// divides kNchwBlockTiles: the widths 7 and 14), else those of its tiles.
template <class Transform, typename TOut, typename TM>
__device__ void output_transform_staged(const TM* __restrict__ M, TOut* __restrict__ y, const float* __restrict__ bias,
                                        int relu, const TileGrid& g) {
  constexpr int m = Transform::m;
  static_assert(kNchwBlockTiles == 32, "a channel's threads are one warp");
  __shared__ TOut staged[kNchwBlockChannels][staged_pixels(m)];
  const BlockOrigin block = block_origin<false>(g);
  const Slot at = thread_slot<Layout::nchw>(block);
  const int lane = static_cast<int>(threadIdx.x) % kNchwBlockTiles;
  TOut* const rows = staged[static_cast<int>(threadIdx.x) / kNchwBlockTiles];
  // Pixels are numbered q = image * plane + row * width + col; the block's tiles [begin, end) touch
  // the pixels [q_begin, q_end), which rows[] holds from q_begin on.
  const int width = g.out_width, plane = g.out_height * width, tiles_w = g.tiles_w;
  const int per_image = g.tiles_h * tiles_w, begin = static_cast<int>(block.tile);
  const int end = static_cast<int>(block.tile + kNchwBlockTiles < g.tiles ? block.tile + kNchwBlockTiles : g.tiles);
  const int last_bottom = ((end - 1) % per_image / tiles_w + 1) * m;
  const int q_begin = begin / per_image * plane + begin % per_image / tiles_w * m * width;
  const int q_end = (end - 1) / per_image * plane + (last_bottom < g.out_height ? last_bottom : g.out_height) * width;
  wait_for_previous_kernel();
  if (in_range(at, g)) {
    float out[m * m];
    output_tile<Transform, Layout::nchw>(M, bias, relu, g, at, out);
    const TileOrigin o = tile_origin(g, at.tile, m);
    const int q = o.image * plane + o.row * width + o.col - q_begin;
#pragma unroll
    for (int i = 0; i < m; ++i)
#pragma unroll
      for (int j = 0; j < m; ++j)
        if (o.row + i < g.out_height && o.col + j < width) store(&rows[q + i * width + j], out[i * m + j]);
  }
  warp_sync();
  if (at.channel >= g.channels) return;  // the whole warp
  const bool whole_rows = begin % tiles_w == 0 && end % tiles_w == 0;
  // Only the block's tiles where rows are not whole: pixel p's tile from its (row, col), which a
  // thread steps without dividing.
  const int step_rows = kNchwBlockTiles / width, step_cols = kNchwBlockTiles % width;
  for (int image = begin / per_image; image * plane < q_end; ++image) {
    const int lo = (q_begin > image * plane ? q_begin : image * plane) - image * plane;
    const int hi = (q_end < (image + 1) * plane ? q_end : (image + 1) * plane) - image * plane;
    TOut* const to = y + (image * g.channels + at.channel) * plane;
    const TOut* const from = rows + (image * plane - q_begin);
    int row = (lo + lane) / width, col = (lo + lane) % width;
    // kStagedLoadsAhead shared-memory loads a lane in flight before their stores (copied one at a
    // time, each store waited for its load: docs/performance.md, "Staged NCHW output: shared-memory
    // loads ahead of their stores").
    for (int first = lo + lane; first < hi; first += kStagedLoadsAhead * kNchwBlockTiles) {
      TOut pixels[kStagedLoadsAhead] = {};
      bool mine[kStagedLoadsAhead];
#pragma unroll
      for (int u = 0; u < kStagedLoadsAhead; ++u) {
        const int p = first + u * kNchwBlockTiles;
        mine[u] = p < hi;
        if (!whole_rows) {
          const int tile = image * per_image + row / m * tiles_w + col / m;
          mine[u] = mine[u] && tile >= begin && tile < end;
          row += step_rows, col += step_cols;
          if (col >= width) col -= width, ++row;
        }
        if (mine[u]) pixels[u] = from[p];
      }
#pragma unroll
      for (int u = 0; u < kStagedLoadsAhead; ++u)
        if (mine[u]) to[first + u * kNchwBlockTiles] = pixels[u];
    }
  }
}

// y = A^T M A (+ bias[k], then ReLU) for channel k, tile p (output_tile); only pixels inside the
// output.
template <class Transform, Layout layout, typename TOut, typename TM = float>
__device__ void output_transform_tiles(const TM* __restrict__ M, TOut* __restrict__ y, const float* __restrict__ bias,
                                       int relu, const TileGrid& g) {
  if constexpr (output_in_pairs<TM>(layout, Transform::n)) {
    if (g.channels % 2 == 0 && aligned_to(M, sizeof(StoragePair<TM>)) && aligned_to(y, sizeof(StoragePair<TOut>)))
      output_transform_pairs<Transform, TOut, true>(M, y, bias, relu, g);
    else
      output_transform_pairs<Transform, TOut, false>(M, y, bias, relu, g);
    return;
  }
  constexpr int m = Transform::m;
  if constexpr (layout == Layout::nchw && nchw_output_staged(m, sizeof(TOut)))
    if (g.staged_output && !nchw_rows_on_runs<m>(y, g.out_width))
      return output_transform_staged<Transform>(M, y, bias, relu, g);
  const Slot at = thread_slot<layout>(block_origin<layout == Layout::nhwc>(g));
  if (!in_range(at, g)) return;
  wait_for_previous_kernel();
  float out[m * m];
  output_tile<Transform, layout>(M, bias, relu, g, at, out);
  const TileOrigin o = tile_origin(g, at.tile, m);
  const PatchWalk walk = patch_walk<layout>(o.image, at.channel, o.row, o.col, g.channels, g.out_height, g.out_width);
  // A tile row of m pixels is contiguous in an NCHW plane: it is stored in runs of kRun elements
  // where every row of the plane starts on a run (nchw_rows_on_runs), so that a warp's stores write
  // whole sectors instead of every m-th element of them.
  constexpr int kRun = output_run_length(m, sizeof(TOut));
  if constexpr (layout == Layout::nchw && kRun > 1)
    if (o.row + m <= g.out_height && o.col + m <= g.out_width && nchw_rows_on_runs<m>(y, g.out_width)) {
#pragma unroll
      for (int i = 0; i < m; ++i)
#pragma unroll
        for (int j = 0; j < m; j += kRun) store_run<kRun>(y + walk.at(i, j), out + i * m + j);
      return;
    }
#pragma unroll
  for (int i = 0; i < m; ++i) {
#pragma unroll
    for (int j = 0; j < m; ++j) {
      if (o.row + i >= g.out_height || o.col + j >= g.out_width) continue;  // clipped border tile
      store(y + walk.at(i, j), out[i * m + j]);
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
  if ((tiles + kBlockTiles - 1) / kBlockTiles > INT_MAX || (channels + kNchwBlockChannels - 1) / kNchwBlockChannels > 65535)
    return false;
  g = {N, channels, H, W, pad, static_cast<int>(out_h), static_cast<int>(out_w), static_cast<int>(tiles_h),
       static_cast<int>(tiles_w), tiles, 0};
  return true;
}

// Blocks of the filter transform (one filter per thread), and of the tile transforms.
inline unsigned filter_blocks(long long filters) {
  return static_cast<unsigned>((filters + kBlockThreads - 1) / kBlockThreads);
}

// The channels x tiles of a channels-fastest block (block_origin), and how many such blocks cover
// `g`: beyond the launch limit for huge shapes (launchers check grid_fits first).
struct BlockShape {
  int channels = kBlockChannels, tiles = kBlockTiles;
};
inline long long channels_fastest_blocks(const TileGrid& g, BlockShape b) {
  return (g.tiles + b.tiles - 1) / b.tiles * ((g.channels + b.channels - 1) / b.channels);
}
inline dim3 tile_blocks(Layout layout, const TileGrid& g, BlockShape b = {}) {
  if (layout == Layout::nhwc) return dim3(static_cast<unsigned>(channels_fastest_blocks(g, b)));
  return dim3(static_cast<unsigned>((g.tiles + kNchwBlockTiles - 1) / kNchwBlockTiles),
              static_cast<unsigned>((g.channels + kNchwBlockChannels - 1) / kNchwBlockChannels));
}
inline bool grid_fits(Layout layout, const TileGrid& g, BlockShape b) {
  return layout == Layout::nchw || channels_fastest_blocks(g, b) <= INT_MAX;
}

// The NHWC blocks of the input transform on n x n tiles of `element_bytes` elements (input_in_pairs:
// threads on channel pairs) and of the output transform from an M of type TM (output_in_pairs); NCHW
// blocks are kNchwBlockChannels x kNchwBlockTiles (the NCHW tile pairs: tile_pair_blocks).
inline BlockShape input_block_shape(Layout layout, int n, int element_bytes) {
  if (input_in_pairs(layout, n)) return {kPairBlockChannels, pair_block_tiles(n, element_bytes)};
  return {};
}
template <typename TM>
inline BlockShape output_block_shape(Layout layout, int n) {
  if (output_in_pairs<TM>(layout, n)) return {kPairBlockChannels, kBlockTiles};
  return {};
}
inline dim3 input_blocks(Layout layout, int n, int element_bytes, const TileGrid& g) {
  return tile_blocks(layout, g, input_block_shape(layout, n, element_bytes));
}
template <typename TM>
inline dim3 output_blocks(Layout layout, int n, const TileGrid& g) {
  return tile_blocks(layout, g, output_block_shape<TM>(layout, n));
}
// Whether the NCHW output of `g` on tiles m wide in `element_bytes` goes through shared memory where
// its rows are not runs (TileGrid::staged_output): where the kernel stages (nchw_output_staged, at
// most kStagedTilesW tiles a row), on grids of at least a block per multiprocessor. On smaller ones
// the staging's wait for a warp's whole tiles costs more than its whole stores save: on 600 random
// shapes (H200, F(4,3) NCHW 3-pass) the forwards of fewer than 64 output blocks took 7.6 % longer
// staged, of 64-131 1.3 % longer, of 132 or more 2.6-17 % less (docs/performance.md, "NCHW output
// rows through shared memory").
inline bool stage_nchw_output(Layout layout, const TileGrid& g, int m, int element_bytes, int multiprocessors) {
  if (layout != Layout::nchw || !nchw_output_staged(m, element_bytes) || g.tiles_w > kStagedTilesW) return false;
  const dim3 blocks = tile_blocks(layout, g);
  return static_cast<long long>(blocks.x) * blocks.y >= multiprocessors;
}

// The grid of the NCHW tile-pair kernels (tile_pair_slot): blocks of 2 kNchwBlockTiles tiles x
// kNchwBlockChannels channels.
inline dim3 tile_pair_blocks(const TileGrid& g) {
  return dim3(static_cast<unsigned>((g.tiles + 2 * kNchwBlockTiles - 1) / (2 * kNchwBlockTiles)),
              static_cast<unsigned>((g.channels + kNchwBlockChannels - 1) / kNchwBlockChannels));
}

}  // namespace nova::kernels
