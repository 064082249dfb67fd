// Correct rounding of exact constants, checked against IEEE division (correctly rounded itself
// when numerator and denominator are exact in the type), and the literals that carry them.
#include "nova/codegen/float_literal.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <random>

using nova::codegen::double_literal;
using nova::codegen::float_literal;
using nova::codegen::round_to_double;
using nova::codegen::round_to_float;
using nova::exact::Rational;

namespace {
Rational ratio(std::int64_t p, std::int64_t q) { return Rational(p) / Rational(q); }
Rational power_of_two(int e) {
  Rational r = 1;
  for (int i = 0; i < std::abs(e); ++i) r = e > 0 ? Rational(r * 2) : Rational(r / 2);
  return r;
}
}  // namespace

TEST_CASE("rounding matches correctly rounded IEEE division") {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> num24(-(1 << 24), 1 << 24), den24(1, 1 << 24);
  std::uniform_int_distribution<std::int64_t> num53(-(std::int64_t(1) << 53), std::int64_t(1) << 53),
      den53(1, std::int64_t(1) << 53);
  for (int i = 0; i < 20000; ++i) {
    const std::int64_t p = num24(rng), q = den24(rng);
    REQUIRE(round_to_float(ratio(p, q)) == static_cast<float>(p) / static_cast<float>(q));
    const std::int64_t pp = num53(rng), qq = den53(rng);
    REQUIRE(round_to_double(ratio(pp, qq)) == static_cast<double>(pp) / static_cast<double>(qq));
  }
}

TEST_CASE("ties round to even, carries reach the next power of two") {
  const Rational two24 = power_of_two(24);
  CHECK(round_to_float(two24 + Rational(1, 2)) == 16777216.0f);       // 2^24 + 1/2: tie, even below
  CHECK(round_to_float(two24 + 1) == 16777216.0f);                    // 2^24 + 1: tie, even below
  CHECK(round_to_float(two24 + 3) == 16777220.0f);                    // 2^24 + 3: tie, even above
  CHECK(round_to_float(two24 - Rational(1, 4)) == 16777216.0f);       // rounds up to 2^24
  CHECK(round_to_float(-(two24 + 3)) == -16777220.0f);
  CHECK(round_to_double(Rational(1, 3)) == 1.0 / 3.0);
  CHECK(round_to_float(0) == 0.0f);
}

TEST_CASE("constants outside the normal range are refused") {
  CHECK_THROWS_AS(round_to_float(power_of_two(200)), nova::exact::InputError);
  CHECK_THROWS_AS(round_to_float(power_of_two(-130)), nova::exact::InputError);
  CHECK(round_to_float(power_of_two(-126)) == 1.17549435e-38f);  // smallest normal float
  CHECK(round_to_double(power_of_two(200)) == 1.6069380442589903e60);
  CHECK_THROWS_AS(round_to_double(power_of_two(-1075)), nova::exact::InputError);
}

TEST_CASE("literals are the shortest text that reads back exactly") {
  CHECK(float_literal(0.6f) == "0.6f");
  CHECK(float_literal(2.0f) == "2.0f");
  CHECK(float_literal(-16384.0f) == "-16384.0f");
  CHECK(double_literal(0.6) == "0.6");
  CHECK(double_literal(1e-5) == "1e-05");
  for (const Rational& c : {ratio(49, 60), ratio(583200, 573937), ratio(-2449, 900), ratio(1, 3)}) {
    const std::string f = float_literal(round_to_float(c));
    CHECK(std::strtof(f.c_str(), nullptr) == round_to_float(c));
    CHECK(std::strtod(double_literal(round_to_double(c)).c_str(), nullptr) == round_to_double(c));
  }
}
