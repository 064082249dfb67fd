#include "nova/codegen/float_literal.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

namespace nova::codegen {
namespace {

using exact::InputError;
using exact::Rational;
using Integer = boost::multiprecision::mpz_int;

// Rounds |value| to `Float` with exact integer arithmetic: find e with 2^e <= |value| < 2^(e+1),
// take the `digits`-bit quotient |value| * 2^(digits-1-e) and round it by comparing the remainder.
template <typename Float>
Float round_exact(const Rational& value) {
  if (value == 0) return Float(0);
  constexpr int digits = std::numeric_limits<Float>::digits;
  const Integer num = abs(boost::multiprecision::numerator(value));
  const Integer den = boost::multiprecision::denominator(value);

  long exponent = static_cast<long>(msb(num)) - static_cast<long>(msb(den));
  const auto at_least_power = [&](long e) { return e >= 0 ? num >= (den << e) : (num << -e) >= den; };
  if (!at_least_power(exponent)) --exponent;

  const long shift = digits - 1 - exponent;
  const Integer scaled_num = shift >= 0 ? Integer(num << shift) : num;
  const Integer scaled_den = shift >= 0 ? den : Integer(den << -shift);
  Integer mantissa = scaled_num / scaled_den;
  const Integer twice_remainder = 2 * (scaled_num % scaled_den);
  if (twice_remainder > scaled_den || (twice_remainder == scaled_den && bit_test(mantissa, 0))) ++mantissa;
  if (msb(mantissa) == static_cast<unsigned>(digits)) {  // rounded up to the next power of two
    mantissa >>= 1;
    ++exponent;
  }
  if (exponent < std::numeric_limits<Float>::min_exponent - 1 || exponent > std::numeric_limits<Float>::max_exponent - 1)
    throw InputError("constant " + exact::to_string(value) + " is outside the normal range of " +
                     (digits == 24 ? "float" : "double"));
  // mantissa < 2^digits, so both conversions below are exact.
  const Float magnitude = std::ldexp(static_cast<Float>(mantissa.convert_to<unsigned long long>()),
                                     static_cast<int>(exponent - (digits - 1)));
  return value < 0 ? -magnitude : magnitude;
}

template <typename Float>
std::string shortest_text(Float value) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  std::string text(buf, ec == std::errc() ? end : buf);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";  // keep it a floating literal
  return text;
}

}  // namespace

float round_to_float(const Rational& value) { return round_exact<float>(value); }
double round_to_double(const Rational& value) { return round_exact<double>(value); }

std::vector<double> row_major_doubles(const exact::RationalMatrix& m) {
  std::vector<double> out;
  for (std::size_t i = 0; i < m.rows(); ++i)
    for (std::size_t j = 0; j < m.cols(); ++j) out.push_back(round_to_double(m(i, j)));
  return out;
}

std::string float_literal(float value) { return shortest_text(value) + "f"; }
std::string double_literal(double value) { return shortest_text(value); }

}  // namespace nova::codegen
