// The GPU kernels of one transform (kernel_table.hpp) and the launchers that run them: a built-in
// transform's TransformEntry::gpu points at its table in generated/<name>_kernels.hip, which only
// GPU builds (NOVA_ENABLE_CUDA, HIP) compile; a loaded one's table is filled when its modules are
// compiled. Each launcher enqueues one kernel on `stream` and returns its launch status; sizes are
// validated (hipErrorInvalidValue), and empty work launches nothing.
//
// Layouts (P = N * tH * tW tiles, tH = ceil(Hout / m), tW = ceil(Wout / m), Hout = H + 2 pad - r + 1,
// tile index p = (image * tH + th) * tW + tw; xi indexes the n x n Winograd domain, row-major):
//   w  filter weights  [K][C][r][r] fp32
//   U  filter, transformed   [n*n][K][C]   (xi, k, c) at (xi * K + k) * C + c
//   V  input, transformed    [n*n][C][P]   (xi, c, p) at (xi * C + c) * P + p  (from NCHW images)
//                            [n*n][P][C]   (xi, c, p) at (xi * P + p) * C + c  (from NHWC images)
//   M  Winograd-domain product [n*n][K][P] fp32, (xi, k, p) at (xi * K + k) * P + p  (NCHW images)
//                            [n*n][P][K] fp32, (xi, k, p) at (xi * P + p) * K + k  (NHWC images)
//   x, y  NCHW or NHWC images; y is N x K x Hout x Wout, only valid pixels are written.
// The input transform reads pixels outside the image as zero (that is the padding). Transform
// arithmetic is fp32 in registers for every storage type (docs/design.md §6).
#pragma once

#include "nova/kernels/fused_mfma_kernels.hpp"
#include "nova/kernels/fused_wgmma_kernels.hpp"
#include "nova/kernels/hip_compat.h"
#include "nova/kernels/kernel_table.hpp"
#include "nova/kernels/transform_launch.hpp"

#include <type_traits>

namespace nova::kernels {

// Kernels by kernel_index; nullptr where the transform has none (the fused kernels of tiles too
// large for them).
struct GpuTransformEntry {
  const void* kernels[kKernelsPerTransform];
  const void* kernel(const KernelId& id) const { return kernels[kernel_index(id)]; }
};

// The fused kernels of a transform ask for more shared memory than 48 KB: opts each of them in, up
// to `shared_limit` bytes, on the current device.
inline hipError_t fused_opt_in(const GpuTransformEntry& e, int shared_limit) {
  for (int i = 0; i < kKernelsPerTransform; ++i)
    if (e.kernels[i] && kernel_group(kernel_id(i).kind) == KernelGroup::fused)
      if (const hipError_t err = fused_opt_in(e.kernels[i], shared_limit); err != hipSuccess) return err;
  return hipSuccess;
}

// The fused forward: the MFMA kernel where device.mfma says (AMD CDNA), else the wgmma kernel where
// fused_uses_wgmma says, else the mma.sync kernel; each family's kernels of this storage type and
// layout. *tc_input, where given: whether the wgmma kernel transformed its input on the tensor cores.
template <typename T>
hipError_t launch_fused(const void* const* mma, const void* const* wg, const void* const* mfma, const TileSize& t,
                        Layout layout, const T* x, const T* U, T* y, const float* bias, int relu, int N, int C, int H,
                        int W, int K, int pad, const FusedDevice& device, hipStream_t stream, bool* tc_input = nullptr) {
  if (tc_input) *tc_input = false;
  TileGrid g{};
  if (const hipError_t e = fused_tile_grid(t, N, C, H, W, K, pad, g); e != hipSuccess) return e;
  const bool wgmma = !device.mfma && fused_uses_wgmma(device, t.n, t.m, C, K);
  const bool fits = device.mfma ? fused_mfma_launch(t.n, C, K, g.tiles, device.shared_limit, device.multiprocessors).tile_groups > 0
                    : wgmma     ? true
                                : fused_launch(t.n, C, K, device.shared_limit).tile_groups > 0;
  if (!fits) return hipErrorInvalidValue;
  if (g.tiles == 0) return hipSuccess;
  const void* const* family = device.mfma ? mfma : wgmma ? wg : mma;
  if (!x || !U || !y || !family[0]) return hipErrorInvalidValue;
  if (device.mfma) return launch_fused_mfma_conv(mfma, t, x, U, y, bias, relu, g, K, device, stream);
  return wgmma ? launch_fused_wg_conv(wg, t, layout, x, U, y, bias, relu, g, K, device, stream, tc_input)
               : launch_fused_conv(mma, t, x, U, y, bias, relu, g, K, device, stream);
}

// The launchers of one transform for storage type T (__half, hip_bfloat16 or float): the 3-pass
// stages and the fused convolution (fp16 and bf16, tiles up to kFusedMaxTileSide).
template <typename T>
class Launchers {
 public:
  Launchers(const TileSize& tile, const GpuTransformEntry& kernels) : tile_(tile), kernels_(kernels) {}

  hipError_t filter(const float* w, T* U, int K, int C, hipStream_t stream) const {
    return launch_filter_transform(kernels_.kernel({KernelKind::filter, Layout::nchw, kStorage}), w, U, K, C, stream);
  }
  hipError_t input(Layout layout, const T* x, T* V, int N, int C, int H, int W, int pad, hipStream_t stream) const {
    return launch_input_transform(kernels_.kernel({KernelKind::input, layout, kStorage}),
                                  kernels_.kernel({KernelKind::input_tile_pairs, Layout::nchw, kStorage}), tile_, layout,
                                  x, V, N, C, H, W, pad, stream);
  }
  // bias: K values or nullptr; relu: non-zero clamps at zero after the bias. M in fp32, or (16-bit
  // storage types) in T. multiprocessors: the GPU's (launch_output_transform).
  template <typename TM>
  hipError_t output(Layout layout, const TM* M, T* y, const float* bias, int relu, int N, int K, int H, int W, int pad,
                    int multiprocessors, hipStream_t stream) const {
    static_assert(std::is_same_v<TM, float> || (std::is_same_v<TM, T> && kStorage != Storage::f32));
    const bool narrow = !std::is_same_v<TM, float>;
    const void* tile_pairs = narrow ? kernels_.kernel({KernelKind::output_tile_pairs, Layout::nchw, kStorage}) : nullptr;
    return launch_output_transform(kernels_.kernel({narrow ? KernelKind::output_m16 : KernelKind::output, layout, kStorage}),
                                   tile_pairs, tile_, layout, M, y, bias, relu, N, K, H, W, pad, multiprocessors, stream);
  }
  bool has_fused() const {
    return kStorage != Storage::f32 && kernels_.kernel({KernelKind::fused_mma, Layout::nchw, kStorage}) != nullptr;
  }
  // The fused convolution: the MFMA kernel (fused_mfma_kernels.hpp) where device.mfma says, U in
  // MfmaFilterOrder; the wgmma kernel (fused_wgmma_kernels.hpp) where fused_uses_wgmma(device, ...)
  // says, U in fused_wg_filter_index order; else the mma.sync kernel (fused_kernels.hpp), U in
  // fused_filter_index order. hipErrorInvalidValue when none takes the shape. tc_input: launch_fused's.
  hipError_t fused(Layout layout, const T* x, const T* U, T* y, const float* bias, int relu, int N, int C, int H, int W,
                   int K, int pad, const FusedDevice& device, hipStream_t stream, bool* tc_input = nullptr) const {
    if (!has_fused()) return hipErrorInvalidValue;
    const auto family = [&](KernelKind kind) { return &kernels_.kernels[kernel_index({kind, layout, kStorage})]; };
    return launch_fused(family(KernelKind::fused_mma), family(KernelKind::fused_wgmma), family(KernelKind::fused_mfma),
                        tile_, layout, x, U, y, bias, relu, N, C, H, W, K, pad, device, stream, tc_input);
  }

 private:
  static constexpr Storage kStorage = storage_of<T>();
  TileSize tile_;
  const GpuTransformEntry& kernels_;
};

}  // namespace nova::kernels
