// The host conversions of the 16-bit dtypes (runtime/src/float16.hpp, the kernels' compile-time ones of
// nova/kernels/storage_bits.hpp): every bit pattern survives the way to float and back, and float rounds to the
// nearest pattern, ties to even, as __float2bfloat16_rn and __float2half_rn do on the device.
#include "float16.hpp"

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {

using nova::runtime::bf16_to_float;
using nova::runtime::float_to_bf16;

bool bf16_is_nan(uint16_t bits) { return (bits & 0x7f80u) == 0x7f80u && (bits & 0x7fu) != 0; }

float float_of(uint32_t bits) { return std::bit_cast<float>(bits); }

}  // namespace

TEST_CASE("every bf16 and fp16 bit pattern converts to float and back unchanged, NaN stays NaN") {
  for (const nova_dtype_t dtype : {NOVA_DTYPE_FP16, NOVA_DTYPE_BF16}) {
    const nova::runtime::Float16Codec* codec = nova::runtime::float16_codec(dtype);
    REQUIRE(codec != nullptr);
    int nans = 0;
    for (uint32_t bits = 0; bits <= 0xffffu; ++bits) {
      const auto b = static_cast<uint16_t>(bits);
      const float value = codec->decode(b);
      INFO((dtype == NOVA_DTYPE_BF16 ? "bf16 " : "fp16 ") << std::hex << bits);
      if (std::isnan(value)) {
        CHECK(std::isnan(codec->decode(codec->encode(value))));
        ++nans;
      } else {
        CHECK(codec->encode(value) == b);
      }
    }
    CHECK(nans == 2 * (dtype == NOVA_DTYPE_BF16 ? 127 : 1023));  // two signs, every non-zero mantissa
  }
  CHECK(nova::runtime::float16_codec(NOVA_DTYPE_FP32) == nullptr);
}

TEST_CASE("bf16 widening is exact: the pattern is the upper half of the fp32") {
  for (uint32_t bits = 0; bits <= 0xffffu; ++bits)
    if (!bf16_is_nan(static_cast<uint16_t>(bits)))
      CHECK(std::bit_cast<uint32_t>(bf16_to_float(static_cast<uint16_t>(bits))) == bits << 16);
  CHECK(bf16_to_float(0x3f80) == 1.0f);
  CHECK(bf16_to_float(0xc040) == -3.0f);
  CHECK(bf16_to_float(0x0001) == std::ldexp(1.0f, -133));  // the smallest subnormal
}

TEST_CASE("float to bf16 rounds to nearest, ties to even, into the next binade and to infinity") {
  int checked = 0;
  for (uint32_t b = 0; b <= 0xffffu; ++b) {
    if ((b & 0x7f80u) == 0x7f80u) continue;  // infinity and NaN: below
    const auto lower = static_cast<uint16_t>(b), upper = static_cast<uint16_t>(b + 1);
    // Floats between the bf16 `lower` and the next one away from zero (`upper`, possibly the
    // next binade's first value or infinity): the low 16 bits say where.
    INFO(std::hex << b);
    CHECK(float_to_bf16(float_of(b << 16 | 0x0001u)) == lower);
    CHECK(float_to_bf16(float_of(b << 16 | 0x7fffu)) == lower);
    CHECK(float_to_bf16(float_of(b << 16 | 0x8000u)) == (b % 2 == 0 ? lower : upper));  // the tie
    CHECK(float_to_bf16(float_of(b << 16 | 0x8001u)) == upper);
    CHECK(float_to_bf16(float_of(b << 16 | 0xffffu)) == upper);
    ++checked;
  }
  CHECK(checked == 65536 - 2 * 128);
  // Independent of the bits: halfway between 1 and 1 + 2^-7 goes to even (1), between 1 + 2^-7 and
  // 1 + 2^-6 up (to 1 + 2^-6); the largest finite fp32 rounds to infinity.
  CHECK(bf16_to_float(float_to_bf16(1.0f + 0x1p-8f)) == 1.0f);
  CHECK(bf16_to_float(float_to_bf16(1.0f + 3 * 0x1p-8f)) == 1.0f + 0x1p-6f);
  CHECK(bf16_to_float(float_to_bf16(-(1.0f + 3 * 0x1p-8f))) == -(1.0f + 0x1p-6f));
  CHECK(float_to_bf16(std::numeric_limits<float>::max()) == 0x7f80);
  CHECK(float_to_bf16(-std::numeric_limits<float>::infinity()) == 0xff80);
}

TEST_CASE("float NaNs become bf16 NaNs of their sign, payloads in the low bits included") {
  for (const uint32_t nan : {0x7fc00000u, 0x7f800001u, 0x7f80ffffu, 0x7fffffffu, 0xff800001u, 0xffc00000u}) {
    INFO(std::hex << nan);
    const uint16_t b = float_to_bf16(float_of(nan));
    CHECK(bf16_is_nan(b));
    CHECK((b & 0x8000u) == (nan >> 16 & 0x8000u));
  }
}

TEST_CASE("float to fp16 rounds as the compiler's _Float16: ties, subnormal results, overflow, both signs") {
  std::vector<float> values = {0.0f, 65504.0f, 65519.99f, 65520.0f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f, 0x1p-26f, 0x1.8p-24f,
                               1e-45f, 3.0f * 0x1p-25f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::max()};
  for (uint32_t u = 0; u < 0x7f800000u; u += 0x13579u) values.push_back(float_of(u));
  for (uint32_t u = 0x33000000u; u < 0x48000000u; u += 0x2000u)  // ties and their neighbours on fp16's grid
    for (const uint32_t d : {0x0fffu, 0x1000u, 0x1001u, 0x7fffu, 0x8000u, 0x8001u}) values.push_back(float_of(u + d));
  for (const float magnitude : values)
    for (const float v : {magnitude, -magnitude}) {
      INFO("v " << v << " bits 0x" << std::hex << std::bit_cast<uint32_t>(v));
      CHECK(nova::runtime::float_to_half(v) == std::bit_cast<uint16_t>(static_cast<_Float16>(v)));
    }
  for (uint32_t bits = 0; bits <= 0xffffu; ++bits) {  // widening, NaNs as quiet NaNs of their sign
    const float want = static_cast<float>(std::bit_cast<_Float16>(static_cast<uint16_t>(bits)));
    const float got = nova::runtime::half_to_float(static_cast<uint16_t>(bits));
    INFO(std::hex << bits);
    CHECK((std::isnan(want) ? std::isnan(got) && std::signbit(got) == std::signbit(want)
                            : std::bit_cast<uint32_t>(got) == std::bit_cast<uint32_t>(want)));
  }
}
