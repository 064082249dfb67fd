// The GPU launchers of one generated transform, which its TransformEntry::gpu points at; defined in
// generated/<name>_kernels.hip, which only GPU builds (NOVA_ENABLE_CUDA, HIP) compile. Each launcher
// enqueues one kernel on `stream` and returns its launch status; sizes are validated
// (hipErrorInvalidValue), and empty work launches nothing.
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

#include "nova/kernels/hip_compat.h"

namespace nova::kernels {
struct FusedDevice;  // fused_kernels.hpp
}

#include <type_traits>


namespace nova::kernels {

// The 3-pass launchers per storage type: fp16 (__half), fp32 and bf16 (hip_bfloat16), in the order
// nova-codegen emits them (kGpuEntry's designated initializers follow the declarations).
struct GpuTransformEntry {
  hipError_t (*launch_filter_transform)(const float* w, __half* U, int K, int C, hipStream_t stream);
  hipError_t (*launch_filter_transform_f32)(const float* w, float* U, int K, int C, hipStream_t stream);
  hipError_t (*launch_filter_transform_bf16)(const float* w, hip_bfloat16* U, int K, int C, hipStream_t stream);
  hipError_t (*launch_input_transform_nchw_f16)(const __half* x, __half* V, int N, int C, int H, int W, int pad,
                                                hipStream_t stream);
  hipError_t (*launch_input_transform_nchw_f32)(const float* x, float* V, int N, int C, int H, int W, int pad,
                                                hipStream_t stream);
  hipError_t (*launch_input_transform_nchw_bf16)(const hip_bfloat16* x, hip_bfloat16* V, int N, int C, int H, int W,
                                                 int pad, hipStream_t stream);
  hipError_t (*launch_input_transform_nhwc_f16)(const __half* x, __half* V, int N, int C, int H, int W, int pad,
                                                hipStream_t stream);
  hipError_t (*launch_input_transform_nhwc_f32)(const float* x, float* V, int N, int C, int H, int W, int pad,
                                                hipStream_t stream);
  hipError_t (*launch_input_transform_nhwc_bf16)(const hip_bfloat16* x, hip_bfloat16* V, int N, int C, int H, int W,
                                                 int pad, hipStream_t stream);
  // bias: K values or nullptr; relu: non-zero clamps at zero after the bias.
  hipError_t (*launch_output_transform_nchw_f16)(const float* M, __half* y, const float* bias, int relu, int N, int K,
                                                 int H, int W, int pad, hipStream_t stream);
  hipError_t (*launch_output_transform_nchw_f32)(const float* M, float* y, const float* bias, int relu, int N, int K,
                                                 int H, int W, int pad, hipStream_t stream);
  hipError_t (*launch_output_transform_nchw_bf16)(const float* M, hip_bfloat16* y, const float* bias, int relu, int N,
                                                  int K, int H, int W, int pad, hipStream_t stream);
  hipError_t (*launch_output_transform_nhwc_f16)(const float* M, __half* y, const float* bias, int relu, int N, int K,
                                                 int H, int W, int pad, hipStream_t stream);
  hipError_t (*launch_output_transform_nhwc_f32)(const float* M, float* y, const float* bias, int relu, int N, int K,
                                                 int H, int W, int pad, hipStream_t stream);
  hipError_t (*launch_output_transform_nhwc_bf16)(const float* M, hip_bfloat16* y, const float* bias, int relu, int N,
                                                  int K, int H, int W, int pad, hipStream_t stream);
  // The fused convolution of NHWC (`nhwc`) or NCHW images, fp16 or bf16, or nullptr for tiles too
  // large for it: the wgmma kernel (fused_wgmma_kernels.hpp) where fused_uses_wgmma(device, ...)
  // says, U in fused_wg_filter_index order; else the mma.sync kernel (fused_kernels.hpp), U in
  // fused_filter_index order. hipErrorInvalidValue when neither takes the shape.
  hipError_t (*launch_fused_conv_f16)(const __half* x, const __half* U, __half* y, const float* bias, int relu, int N,
                                      int C, int H, int W, int K, int pad, bool nhwc,
                                      const FusedDevice& device, hipStream_t stream);
  hipError_t (*launch_fused_conv_bf16)(const hip_bfloat16* x, const hip_bfloat16* U, hip_bfloat16* y, const float* bias,
                                       int relu, int N, int C, int H, int W, int K, int pad, bool nhwc,
                                       const FusedDevice& device, hipStream_t stream);
};

// The launchers of one transform for storage type T (__half, hip_bfloat16 or float), picked from
// its entry: the 3-pass stages and the fused kernel (nullptr for fp32 and for tiles it does not take).
template <typename T>
struct Launchers {
  hipError_t (*filter)(const float* w, T* U, int K, int C, hipStream_t stream);
  hipError_t (*input_nchw)(const T* x, T* V, int N, int C, int H, int W, int pad, hipStream_t stream);
  hipError_t (*input_nhwc)(const T* x, T* V, int N, int C, int H, int W, int pad, hipStream_t stream);
  hipError_t (*output_nchw)(const float* M, T* y, const float* bias, int relu, int N, int K, int H, int W, int pad,
                            hipStream_t stream);
  hipError_t (*output_nhwc)(const float* M, T* y, const float* bias, int relu, int N, int K, int H, int W, int pad,
                            hipStream_t stream);
  hipError_t (*fused)(const T* x, const T* U, T* y, const float* bias, int relu, int N, int C, int H, int W, int K,
                      int pad, bool nhwc, const FusedDevice& device, hipStream_t stream);
};

template <typename T>
inline Launchers<T> launchers(const GpuTransformEntry& g) {
  if constexpr (std::is_same_v<T, __half>) {
    return {g.launch_filter_transform,          g.launch_input_transform_nchw_f16,  g.launch_input_transform_nhwc_f16,
            g.launch_output_transform_nchw_f16, g.launch_output_transform_nhwc_f16, g.launch_fused_conv_f16};
  } else if constexpr (std::is_same_v<T, hip_bfloat16>) {
    return {g.launch_filter_transform_bf16,      g.launch_input_transform_nchw_bf16,  g.launch_input_transform_nhwc_bf16,
            g.launch_output_transform_nchw_bf16, g.launch_output_transform_nhwc_bf16, g.launch_fused_conv_bf16};
  } else {
    return {g.launch_filter_transform_f32,      g.launch_input_transform_nchw_f32,  g.launch_input_transform_nhwc_f32,
            g.launch_output_transform_nchw_f32, g.launch_output_transform_nhwc_f32, nullptr};
  }
}

}  // namespace nova::kernels
