#include "nova/errlab/rounding.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

using namespace nova::errlab;

namespace {

const double inf = std::numeric_limits<double>::infinity();

// Same value and same sign (so -0 and +0 differ), NaN equal to NaN.
bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

// bf16 from a float by the usual bit recipe (round half to even on the upper 16 bits): an
// independent oracle for float inputs.
double bf16_from_float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  u += 0x7FFFu + ((u >> 16) & 1u);
  u &= 0xFFFF0000u;
  float r;
  std::memcpy(&r, &u, sizeof r);
  return r;
}

}  // namespace

TEST_CASE("fp16 rounding: known values, ties to even, subnormals, overflow", "[rounding]") {
  CHECK(same(round_to_fp16(1.0), 1.0));
  CHECK(same(round_to_fp16(0.1), 0x1.998p-4));
  CHECK(same(round_to_fp16(1.0 / 3.0), 0x1.554p-2));
  CHECK(same(round_to_fp16(1 + 0x1p-11), 1.0));                  // tie -> even (down)
  CHECK(same(round_to_fp16(1 + 3 * 0x1p-11), 1 + 0x1p-9));       // tie -> even (up)
  CHECK(same(round_to_fp16(1 + 0x1p-11 + 0x1p-40), 1 + 0x1p-10));  // just above the tie
  CHECK(same(round_to_fp16(2047.5), 2048.0));                     // carry into the exponent
  CHECK(same(round_to_fp16(65504.0), 65504.0));                   // largest finite
  CHECK(same(round_to_fp16(std::nextafter(65520.0, 0.0)), 65504.0));
  CHECK(same(round_to_fp16(65520.0), inf));                       // tie above the largest -> inf
  CHECK(same(round_to_fp16(-1e6), -inf));
  CHECK(same(round_to_fp16(0x1p-14), 0x1p-14));                   // smallest normal
  CHECK(same(round_to_fp16(0x1p-14 - 0x1p-25), 0x1p-14));         // tie in the subnormal range
  CHECK(same(round_to_fp16(0x1p-24), 0x1p-24));                   // smallest subnormal
  CHECK(same(round_to_fp16(5e-8), 0x1p-24));
  CHECK(same(round_to_fp16(0x1p-25), 0.0));                       // tie -> even (zero)
  CHECK(same(round_to_fp16(std::nextafter(0x1p-25, 1.0)), 0x1p-24));
  CHECK(same(round_to_fp16(3 * 0x1p-25), 0x1p-23));
  CHECK(same(round_to_fp16(-0x1p-26), -0.0));                     // underflow keeps the sign
  CHECK(same(round_to_fp16(-0.0), -0.0));
  CHECK(same(round_to_fp16(inf), inf));
  CHECK(same(round_to_fp16(-inf), -inf));
  CHECK(std::isnan(round_to_fp16(std::numeric_limits<double>::quiet_NaN())));
}

TEST_CASE("bf16 rounding: known values, ties to even, subnormals, overflow", "[rounding]") {
  CHECK(same(round_to_bf16(1.0), 1.0));
  CHECK(same(round_to_bf16(0.1), 0x1.9ap-4));
  CHECK(same(round_to_bf16(1.0 / 3.0), 0x1.56p-2));
  CHECK(same(round_to_bf16(1 + 0x1p-8), 1.0));
  CHECK(same(round_to_bf16(1 + 3 * 0x1p-8), 1 + 0x1p-6));
  CHECK(same(round_to_bf16(std::ldexp(2 - 0x1p-7, 127)), std::ldexp(2 - 0x1p-7, 127)));  // largest finite
  CHECK(same(round_to_bf16(std::ldexp(2 - 0x1p-8, 127)), inf));
  CHECK(same(round_to_bf16(-1e39), -inf));
  CHECK(same(round_to_bf16(0x1p-133), 0x1p-133));  // smallest subnormal
  CHECK(same(round_to_bf16(0x1p-134), 0.0));
  CHECK(same(round_to_bf16(3 * 0x1p-134), 0x1p-132));
  CHECK(std::isnan(round_to_bf16(std::numeric_limits<double>::quiet_NaN())));
}

TEST_CASE("fp32 rounding: known values", "[rounding]") {
  CHECK(same(round_to_fp32(0.1), static_cast<double>(0.1f)));
  CHECK(same(round_to_fp32(1 + 0x1p-24), 1.0));
  CHECK(same(round_to_fp32(1 + 3 * 0x1p-24), 1 + 0x1p-22));
  CHECK(same(round_to_fp32(0x1p-150), 0.0));
  CHECK(same(round_to_fp32(3 * 0x1p-150), 0x1p-148));
  CHECK(same(round_to_fp32(std::ldexp(2 - 0x1p-24, 127)), inf));
}

// Values spread over every exponent a format meets, plus exact ties of that format.
template <class Check>
void sweep(int precision, int min_exponent, int max_exponent, Check check) {
  std::mt19937_64 gen(12345);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(min_exponent - precision - 2, max_exponent + 2);
  std::uniform_int_distribution<long long> digits(0, (1LL << precision) - 1);
  for (int i = 0; i < 200000; ++i) {
    const double x = std::ldexp(mantissa(gen), exponent(gen)) * (i % 2 ? -1 : 1);
    check(x);
    // (digits + 1/2) ulp: exactly halfway between two neighbours of the format (normal or subnormal).
    const int e = std::max(exponent(gen), min_exponent) - (precision - 1);
    const double tie = std::ldexp(static_cast<double>(digits(gen)) + 0.5, e);
    check(tie);
    check(std::nextafter(tie, 0.0));
    check(std::nextafter(tie, inf));
  }
}

TEST_CASE("the generic software rounding agrees with the hardware fp32 conversion", "[rounding]") {
  sweep(24, -126, 127, [](double x) {
    INFO("x = " << x);
    REQUIRE(same(round_to_binary<kFp32>(x), static_cast<double>(static_cast<float>(x))));
  });
}

#if defined(__FLT16_MAX__)
TEST_CASE("fp16 rounding agrees with the compiler's _Float16 conversion", "[rounding]") {
  sweep(11, -14, 15, [](double x) {
    INFO("x = " << x);
    REQUIRE(same(round_to_fp16(x), static_cast<double>(static_cast<_Float16>(x))));
  });
}
#endif

TEST_CASE("bf16 rounding of floats agrees with the bit recipe", "[rounding]") {
  sweep(8, -126, 127, [](double x) {
    const float f = static_cast<float>(x);
    if (std::isinf(f)) return;
    INFO("f = " << f);
    REQUIRE(same(round_to_bf16(f), bf16_from_float_bits(f)));
  });
}

TEST_CASE("symmetric int8 quantization rounds half to even and saturates", "[rounding]") {
  const double s = 0.5;
  CHECK(quantize_int8(0.25, s) == 0.0);   // 0.5 steps -> 0
  CHECK(quantize_int8(0.75, s) == 1.0);   // 1.5 steps -> 2 steps
  CHECK(quantize_int8(1.25, s) == 1.0);   // 2.5 steps -> 2 steps
  CHECK(quantize_int8(-1.3, s) == -1.5);
  CHECK(quantize_int8(1000.0, s) == 127 * s);
  CHECK(quantize_int8(-1000.0, s) == -127 * s);
  CHECK(quantize_int8(3.0, 0.0) == 0.0);  // all-zero tensor
  CHECK(int8_scale(254.0) == 2.0);
  CHECK(std::isnan(quantize_int8(1.0, std::numeric_limits<double>::quiet_NaN())));
}
