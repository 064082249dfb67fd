// The 16-bit storage types' bit patterns to and from float, rounding to nearest even as the devices'
// __float2half_rn and __float2bfloat16_rn do, by integer arithmetic on the float's bits. Constant expressions, so
// that the kernels make tables of them at compile time (the wgmma kernel's fragments, wg_storage_bits) with the code
// the host converts with (runtime/src/float16.hpp).
#pragma once

#include <cstdint>

namespace nova::kernels {

constexpr std::uint32_t float_bits(float v) { return __builtin_bit_cast(std::uint32_t, v); }
constexpr float float_of_bits(std::uint32_t u) { return __builtin_bit_cast(float, u); }

// bf16 is the upper half of an fp32, so widening is exact. Narrowing rounds the 16 bits dropped to nearest even (a
// carry out of the mantissa is the next binade, and past the largest finite value infinity); a NaN is handled apart,
// since rounding could carry it into infinity: it becomes a quiet NaN of its sign.
constexpr float bf16_bits_to_float(std::uint16_t bits) { return float_of_bits(std::uint32_t{bits} << 16); }
constexpr std::uint16_t float_to_bf16_bits(float v) {
  const std::uint32_t u = float_bits(v);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>(u >> 16 | 0x40u);
  return static_cast<std::uint16_t>((u + 0x7FFFu + (u >> 16 & 1u)) >> 16);
}

// fp16: 5 exponent bits, 10 of mantissa; subnormals below 2^-14, in steps of 2^-24.
constexpr float half_bits_to_float(std::uint16_t bits) {
  const std::uint32_t sign = std::uint32_t{bits} >> 15 << 31, exponent = bits >> 10 & 0x1Fu, significand = bits & 0x3FFu;
  if (exponent == 0) return (sign ? -1.0f : 1.0f) * static_cast<float>(significand) * 0x1p-24f;
  if (exponent == 31) return float_of_bits(sign | 0x7F800000u | (significand ? 0x400000u | significand << 13 : 0u));
  return float_of_bits(sign | (exponent + 112u) << 23 | significand << 13);
}
constexpr std::uint16_t float_to_half_bits(float v) {
  const std::uint32_t u = float_bits(v), magnitude = u & 0x7FFFFFFFu;
  const auto sign = static_cast<std::uint16_t>(u >> 16 & 0x8000u);
  if (magnitude > 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7E00u | (magnitude >> 13 & 0x3FFu));  // quiet NaN
  if (magnitude >= 0x477FF000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // 65520 and above: infinity
  const int exponent = static_cast<int>(magnitude >> 23);
  // The significand in units of the result's last place: 2^-24 below 2^-14 (subnormal), else 2^(e - 10).
  const int shift = exponent < 113 ? 126 - exponent : 13;
  if (shift > 24) return sign;  // below 2^-25: zero
  const std::uint32_t significand = exponent < 113 ? (magnitude & 0x7FFFFFu) | 0x800000u : magnitude - (112u << 23);
  const std::uint32_t kept = significand >> shift, rest = significand & ((1u << shift) - 1), half = 1u << (shift - 1);
  return static_cast<std::uint16_t>(sign | (kept + (rest > half || (rest == half && (kept & 1u)))));
}

}  // namespace nova::kernels
