// Correct rounding of doubles to narrower binary floating-point formats (fp32, fp16, bf16) and
// symmetric int8 quantization. Bit-exact software rounding: round to nearest, ties to even;
// gradual underflow (subnormals); overflow to +-inf; NaN and inf pass through. The functions are
// branch-free and header-only so the error lab's inner loops inline and vectorise them.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace nova::errlab {

// An IEEE-style binary format: `precision` significand bits (hidden bit included) and the
// exponent range of its normal numbers.
struct BinaryFormat {
  int precision;
  int min_exponent;
  int max_exponent;
  friend constexpr bool operator==(const BinaryFormat&, const BinaryFormat&) = default;
};

inline constexpr BinaryFormat kFp32{24, -126, 127};
inline constexpr BinaryFormat kFp16{11, -14, 15};
inline constexpr BinaryFormat kBf16{8, -126, 127};

// 2^e for the exponents used here (well inside double's normal range).
constexpr double exp2i(int e) {
  double v = 1.0;
  for (; e > 0; --e) v *= 2.0;
  for (; e < 0; ++e) v *= 0.5;
  return v;
}

// x correctly rounded to format F, returned as the (exactly representable) double; pure software.
template <BinaryFormat F>
constexpr double round_to_binary(double x) noexcept {
  static_assert(F.precision >= 2 && F.precision < 53);
  constexpr int dropped = 53 - F.precision;  // low significand bits of a double that F lacks
  constexpr std::uint64_t sign_bit = std::uint64_t{1} << 63;
  constexpr std::uint64_t dropped_mask = (std::uint64_t{1} << dropped) - 1;
  constexpr std::uint64_t half_minus_one = (std::uint64_t{1} << (dropped - 1)) - 1;
  constexpr double min_normal = exp2i(F.min_exponent);
  // Adding this power of two, whose double ulp is F's subnormal spacing, rounds |x| to that
  // spacing (nearest, ties to even) in one double addition; subtracting it again is exact.
  constexpr double subnormal_shifter = exp2i(F.min_exponent - F.precision + 1 + 52);
  constexpr double overflow = exp2i(F.max_exponent + 1);

  const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
  const std::uint64_t sign = bits & sign_bit;
  const std::uint64_t magnitude = bits ^ sign;
  const double a = std::bit_cast<double>(magnitude);

  // Normal range: round the double's significand to F's width on the bit pattern; a carry
  // out of the significand correctly bumps the exponent.
  const std::uint64_t rounded_bits =
      (magnitude + half_minus_one + ((magnitude >> dropped) & 1)) & ~dropped_mask;
  const double normal = std::bit_cast<double>(rounded_bits);
  const double subnormal = (a + subnormal_shifter) - subnormal_shifter;

  double r = a < min_normal ? subnormal : normal;
  r = r >= overflow ? std::numeric_limits<double>::infinity() : r;
  r = a != a ? a : r;  // NaN: keep it (the bit rounding could turn a NaN payload into inf)
  return std::bit_cast<double>(std::bit_cast<std::uint64_t>(r) | sign);
}

// The rounding the error lab uses. fp32 is the processor's own format: its double -> float
// conversion is the same IEEE 754 rounding (checked against round_to_binary by the tests) and
// several times faster in the inner loops.
template <BinaryFormat F>
constexpr double round_to(double x) noexcept {
  static_assert(std::numeric_limits<float>::is_iec559);
  if constexpr (F == kFp32) return static_cast<float>(x);
  else return round_to_binary<F>(x);
}

inline double round_to_fp32(double x) noexcept { return round_to<kFp32>(x); }
inline double round_to_fp16(double x) noexcept { return round_to<kFp16>(x); }
inline double round_to_bf16(double x) noexcept { return round_to<kBf16>(x); }

// Symmetric int8 quantization (paper section 4.1): scale = max|x| / 127, q = round-half-even(x /
// scale) saturated to [-127, 127]. Returns the dequantized value q * scale that later stages see.
inline constexpr double kInt8Levels = 127.0;

inline double int8_scale(double max_abs) noexcept { return max_abs / kInt8Levels; }

inline double quantize_int8(double x, double scale) noexcept {
  if (scale == 0) return 0.0;  // an all-zero tensor; a non-finite scale makes every value NaN below
  // 1.5 * 2^52 forces rounding of |v| <= 2^51 to an integer, ties to even.
  constexpr double integer_shifter = 6755399441055744.0;
  double v = x / scale;
  v = v > kInt8Levels ? kInt8Levels : (v < -kInt8Levels ? -kInt8Levels : v);
  return ((v + integer_shifter) - integer_shifter) * scale;
}

}  // namespace nova::errlab
