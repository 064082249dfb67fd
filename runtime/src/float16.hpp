// The C API's 16-bit floating types on the host: their bit patterns (uint16_t) to and from float,
// rounding to nearest even as the devices' __float2half_rn and __float2bfloat16_rn do. The CPU
// backend and the tests convert through these and nothing else.
#pragma once

#include "nova/kernels/storage_bits.hpp"
#include "nova/runtime.h"

#include <cstdint>

namespace nova::runtime {

// The kernels' compile-time conversions (nova/kernels/storage_bits.hpp), so that host and tables round alike.
inline float half_to_float(uint16_t bits) { return kernels::half_bits_to_float(bits); }
inline uint16_t float_to_half(float value) { return kernels::float_to_half_bits(value); }
inline float bf16_to_float(uint16_t bits) { return kernels::bf16_bits_to_float(bits); }
inline uint16_t float_to_bf16(float value) { return kernels::float_to_bf16_bits(value); }

// How the bit patterns of a 16-bit dtype convert; nullptr for fp32, which is stored as float.
struct Float16Codec {
  float (*decode)(uint16_t bits);
  uint16_t (*encode)(float value);
};

inline const Float16Codec* float16_codec(nova_dtype_t dtype) {
  static constexpr Float16Codec kHalf{half_to_float, float_to_half}, kBf16{bf16_to_float, float_to_bf16};
  switch (dtype) {
    case NOVA_DTYPE_FP16: return &kHalf;
    case NOVA_DTYPE_BF16: return &kBf16;
    case NOVA_DTYPE_FP32: break;
  }
  return nullptr;
}

}  // namespace nova::runtime
