// Host launchers of the transform kernels: validate sizes, build the grid, launch on a stream.
// Empty work launches nothing and succeeds; sizes no kernel accepts, or missing buffers for real
// work, give hipErrorInvalidValue. Used by every generated <name>_kernels.hip.
#pragma once

#include "nova/kernels/transform_kernels.hpp"

namespace nova::kernels {

template <class Transform, typename TU>
hipError_t launch_filter_transform(void (*kernel)(const float*, TU*, int, int), const float* w, TU* U, int K, int C,
                                   hipStream_t stream) {
  const long long filters = static_cast<long long>(K) * C;
  if (K < 0 || C < 0 || (filters + kBlockThreads - 1) / kBlockThreads > INT_MAX) return hipErrorInvalidValue;
  if (filters == 0) return hipSuccess;
  if (!w || !U) return hipErrorInvalidValue;
  kernel<<<filter_blocks(filters), kBlockThreads, 0, stream>>>(w, U, K, C);
  return hipGetLastError();
}

template <class Transform, Layout layout, typename TIn, typename TV>
hipError_t launch_input_transform(void (*kernel)(const TIn*, TV*, TileGrid), const TIn* x, TV* V, int N, int C, int H,
                                  int W, int pad, hipStream_t stream) {
  constexpr bool nhwc = layout == Layout::nhwc;  // block order: see block_origin
  TileGrid g{};
  if (!make_tile_grid<Transform>(N, C, H, W, pad, g) || (nhwc && !fits_channels_fastest_grid(g)))
    return hipErrorInvalidValue;
  if (g.tiles == 0 || C == 0) return hipSuccess;
  if (!x || !V) return hipErrorInvalidValue;
  kernel<<<nhwc ? tile_blocks<true>(g) : tile_blocks<false>(g), kBlockThreads, 0, stream>>>(x, V, g);
  return hipGetLastError();
}

template <class Transform, Layout layout, typename TOut>
hipError_t launch_output_transform(void (*kernel)(const float*, TOut*, const float*, int, TileGrid), const float* M,
                                   TOut* y, const float* bias, int relu, int N, int K, int H, int W, int pad,
                                   hipStream_t stream) {
  TileGrid g{};
  constexpr bool nhwc = layout == Layout::nhwc;  // block order: see block_origin
  if (!make_tile_grid<Transform>(N, K, H, W, pad, g) || (nhwc && !fits_channels_fastest_grid(g)))
    return hipErrorInvalidValue;
  if (g.tiles == 0 || K == 0) return hipSuccess;
  if (!M || !y) return hipErrorInvalidValue;
  kernel<<<nhwc ? tile_blocks<true>(g) : tile_blocks<false>(g), kBlockThreads, 0, stream>>>(M, y, bias, relu, g);
  return hipGetLastError();
}

}  // namespace nova::kernels
