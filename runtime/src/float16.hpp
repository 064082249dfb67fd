// The C API's 16-bit floating types on the host: their bit patterns (uint16_t) to and from float,
// rounding to nearest even as the devices' __float2half_rn and __float2bfloat16_rn do. The CPU
// backend and the tests convert through these and nothing else.
#pragma once

#include "nova/runtime.h"

#include <bit>
#include <cstdint>

namespace nova::runtime {

// fp16: the compiler's _Float16 rounds to nearest even, subnormals included.
inline float half_to_float(uint16_t bits) { return static_cast<float>(std::bit_cast<_Float16>(bits)); }
inline uint16_t float_to_half(float value) { return std::bit_cast<uint16_t>(static_cast<_Float16>(value)); }

// bf16 is the upper half of an fp32, so widening is exact.
inline float bf16_to_float(uint16_t bits) { return std::bit_cast<float>(uint32_t{bits} << 16); }

// Rounds the 16 bits dropped to nearest even (a carry out of the mantissa is the next binade, and
// past the largest finite value infinity). A NaN is handled apart, since rounding could carry it
// into infinity and truncating one whose payload lies in the low 16 bits would give infinity too:
// it becomes a quiet NaN of its sign.
inline uint16_t float_to_bf16(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if (value != value) return static_cast<uint16_t>(bits >> 16 | 0x0040u);
  return static_cast<uint16_t>((bits + 0x7fffu + (bits >> 16 & 1u)) >> 16);
}

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
