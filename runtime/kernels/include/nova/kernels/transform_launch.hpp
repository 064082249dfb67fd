// Host launchers of the transform kernels: validate sizes, build the grid, launch on a stream.
// Empty work launches nothing and succeeds; sizes no kernel accepts, or missing buffers for real
// work, give hipErrorInvalidValue. A kernel is a `const void*`: a __global__ function of this
// build, or a handle of one compiled at run time (cudaLibraryGetKernel), which the launch API takes
// alike, so a loaded transform runs with the same grids as a built-in one.
#pragma once

#include "nova/kernels/transform_kernels.hpp"

#include <unordered_map>

namespace nova::kernels {

// What the launchers need to know of a transform: F(m, r) on n x n tiles.
struct TileSize {
  int m, r, n;
};

// Launches `kernel` with arguments `args` (each passed by address, as the launch API wants).
template <class... Args>
hipError_t launch_kernel(const void* kernel, dim3 grid, dim3 block, int shared_bytes, hipStream_t stream,
                         Args... args) {
  void* argv[] = {static_cast<void*>(&args)...};
  return hipLaunchKernel(kernel, grid, block, argv, static_cast<size_t>(shared_bytes), stream);
}

#if !(defined(__HIP__) || defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__))
// Whether `kernel` was compiled for a virtual architecture of sm_90 or later, where its
// wait_for_previous_kernel waits (griddepcontrol.wait): the code decides, not the device it runs on,
// which for a kernel compiled for an older architecture would be a race. Asked of the driver once a
// kernel and thread (built-in ones and those a loaded transform compiled alike) and remembered by the
// thread, so that a launch takes no lock.
inline bool waits_for_previous_kernel(const void* kernel) {
  thread_local std::unordered_map<const void*, bool> known;
  if (const auto it = known.find(kernel); it != known.end()) return it->second;
  cudaFuncAttributes attributes{};
  const bool waits = cudaFuncGetAttributes(&attributes, kernel) == cudaSuccess && attributes.ptxVersion >= 90;
  known.emplace(kernel, waits);
  return waits;
}
#endif

// launch_kernel for a transform kernel that calls wait_for_previous_kernel before touching global
// memory: on NVIDIA GPUs, where that kernel waits (waits_for_previous_kernel), it may start while the
// kernel before it in the stream finishes (programmatic dependent launch), which hides that kernel's
// tail and this one's launch; a few microseconds that weigh at small batches (docs/performance.md,
// "Transform kernels launched as programmatic dependents"). The kinds that launch so: launches_as_dependent.
template <class... Args>
hipError_t launch_dependent_kernel(const void* kernel, dim3 grid, dim3 block, hipStream_t stream, Args... args) {
#if defined(__HIP__) || defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)
  return launch_kernel(kernel, grid, block, 0, stream, args...);
#else
  if (!waits_for_previous_kernel(kernel)) return launch_kernel(kernel, grid, block, 0, stream, args...);
  void* argv[] = {static_cast<void*>(&args)...};
  cudaLaunchAttribute dependent{};
  dependent.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  dependent.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.stream = stream;
  config.attrs = &dependent;
  config.numAttrs = 1;
  return cudaLaunchKernelExC(&config, kernel, argv);
#endif
}

template <typename TU>
hipError_t launch_filter_transform(const void* kernel, const float* w, TU* U, int K, int C, hipStream_t stream) {
  const long long filters = static_cast<long long>(K) * C;
  if (K < 0 || C < 0 || (filters + kBlockThreads - 1) / kBlockThreads > INT_MAX) return hipErrorInvalidValue;
  if (filters == 0) return hipSuccess;
  if (!w || !U || !kernel) return hipErrorInvalidValue;
  return launch_kernel(kernel, dim3(filter_blocks(filters)), dim3(kBlockThreads), 0, stream, w, U, K, C);
}

// `tile_pairs`: the transform's NCHW input kernel in tile pairs, or nullptr where it has none; it runs
// where input_in_tile_pairs says.
template <typename TIn, typename TV>
hipError_t launch_input_transform(const void* kernel, const void* tile_pairs, const TileSize& t, Layout layout,
                                  const TIn* x, TV* V, int N, int C, int H, int W, int pad, hipStream_t stream) {
  TileGrid g{};
  if (!make_tile_grid(t.m, t.r, N, C, H, W, pad, g) ||
      !grid_fits(layout, g, input_block_shape(layout, t.n, sizeof(TIn))))
    return hipErrorInvalidValue;
  if (g.tiles == 0 || C == 0) return hipSuccess;
  if (!x || !V || !kernel) return hipErrorInvalidValue;
  if (tile_pairs && input_in_tile_pairs(layout, t.n, g, x, V, sizeof(StoragePair<TIn>)))
    return launch_dependent_kernel(tile_pairs, tile_pair_blocks(g), dim3(kBlockThreads), stream, x, V, g);
  return launch_dependent_kernel(kernel, input_blocks(layout, t.n, sizeof(TIn), g),
                                 dim3(input_block_threads(layout, t.n, sizeof(TIn))), stream, x, V, g);
}

// `tile_pairs`: the transform's NCHW output kernel in tile pairs from a 16-bit M, or nullptr where it has
// none (or M is fp32); it runs where output_in_tile_pairs says. `multiprocessors`: the GPU's, for
// stage_nchw_output.
template <typename TOut, typename TM>
hipError_t launch_output_transform(const void* kernel, const void* tile_pairs, const TileSize& t, Layout layout,
                                   const TM* M, TOut* y, const float* bias, int relu, int N, int K, int H, int W,
                                   int pad, int multiprocessors, hipStream_t stream) {
  TileGrid g{};
  if (!make_tile_grid(t.m, t.r, N, K, H, W, pad, g) || !grid_fits(layout, g, output_block_shape<TM>(layout, t.n)))
    return hipErrorInvalidValue;
  g.staged_output = stage_nchw_output(layout, g, t.m, sizeof(TOut), multiprocessors) ? 1 : 0;
  if (g.tiles == 0 || K == 0) return hipSuccess;
  if (!M || !y || !kernel) return hipErrorInvalidValue;
  if (tile_pairs && output_in_tile_pairs(layout, t.m, g, M, y, sizeof(TM)))
    return launch_dependent_kernel(tile_pairs, tile_pair_blocks(g), dim3(kBlockThreads), stream, M, y, bias, relu, g);
  return launch_dependent_kernel(kernel, output_blocks<TM>(layout, t.n, g), dim3(kBlockThreads), stream, M, y, bias,
                                 relu, g);
}

}  // namespace nova::kernels
