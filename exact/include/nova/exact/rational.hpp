// Exact rationals (GMP through Boost.Multiprecision), interpolation points and small rational
// matrices. Nothing in this header touches floating point except the explicit to_double().
#pragma once

#include <boost/multiprecision/gmp.hpp>

#include <cstdint>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nova::exact {

using Rational = boost::multiprecision::mpq_rational;

// Every user-facing input error (parsing, validation) is reported through this type so that the
// CLI can print the message and exit non-zero without a stack trace.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses "7", "-3/5", "0.6" (finite decimal, exact), "+2". Throws InputError naming the text.
Rational parse_rational(std::string_view text);

// Command-line validation of a whole number (a seed, a thread count): "" when `text` is a decimal
// integer in [0, max], else the reason. Signs, exponents and values beyond max are errors, never
// wrapped or clamped.
std::string unsigned_error(std::string_view text, std::uint64_t max);

// Canonical text: "p/q" in lowest terms with q > 0, or "p" when q == 1.
std::string to_string(const Rational& value);

double to_double(const Rational& value);
std::vector<double> to_doubles(const std::vector<Rational>& values);  // each rounded as to_double

// An interpolation point: a finite rational or the point at infinity.
struct Point {
  bool is_infinity = false;
  Rational value;  // meaningful only when !is_infinity

  static Point infinity() { return Point{true, Rational(0)}; }
  static Point finite(Rational v) { return Point{false, std::move(v)}; }
  friend bool operator==(const Point&, const Point&) = default;
};

// Accepts "inf", "infinity", "∞" (any case) or a rational.
Point parse_point(std::string_view text);
std::string to_string(const Point& point);

// Splits a comma-separated list ("0,3/5,-3/5,inf") and parses each entry.
std::vector<Point> parse_point_list(std::string_view csv);

// Dense row-major rational matrix; small (at most a few dozen rows), so no expression templates.
class RationalMatrix {
 public:
  RationalMatrix() = default;
  RationalMatrix(std::size_t rows, std::size_t cols) : rows_(rows), cols_(cols), data_(rows * cols) {}

  std::size_t rows() const { return rows_; }
  std::size_t cols() const { return cols_; }
  Rational& operator()(std::size_t i, std::size_t j) { return data_[i * cols_ + j]; }
  const Rational& operator()(std::size_t i, std::size_t j) const { return data_[i * cols_ + j]; }

  RationalMatrix transposed() const;
  friend RationalMatrix operator*(const RationalMatrix& a, const RationalMatrix& b);
  friend bool operator==(const RationalMatrix&, const RationalMatrix&) = default;

 private:
  std::size_t rows_ = 0;
  std::size_t cols_ = 0;
  std::vector<Rational> data_;
};

// Exact inverse by Gauss-Jordan elimination; throws std::domain_error if singular.
RationalMatrix inverse(const RationalMatrix& square);

// Moore-Penrose pseudo-inverse of a full-rank matrix, exact.
RationalMatrix pseudo_inverse(const RationalMatrix& full_rank);

}  // namespace nova::exact
