#include "nova/exact/rational.hpp"

#include <algorithm>
#include <cctype>

namespace nova::exact {
namespace {

// Longest text accepted for one number: far beyond any useful point, short enough that a typo
// (or a pasted file) cannot make the exact arithmetic explode.
constexpr std::size_t kMaxNumberLength = 64;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

[[noreturn]] void bad_number(std::string_view text, std::string_view why) {
  throw InputError("invalid number '" + std::string(text) + "': " + std::string(why));
}

// Decimal always: GMP reads a leading 0 as octal ("081" would be an error, "010" eight).
boost::multiprecision::mpz_int integer_from_digits(std::string_view digits) {
  const std::size_t first = digits.find_first_not_of('0');
  return boost::multiprecision::mpz_int(first == std::string_view::npos ? std::string("0") : std::string(digits.substr(first)));
}

}  // namespace

std::string unsigned_error(std::string_view text, std::uint64_t max) {
  if (!all_digits(text)) return "expected a whole number from 0 to " + std::to_string(max) + ", got '" + std::string(text) + "'";
  if (integer_from_digits(text) > max) return std::string(text) + " is more than the largest accepted, " + std::to_string(max);
  return {};
}

Rational parse_rational(std::string_view raw) {
  const std::string_view text = trim(raw);
  if (text.empty()) bad_number(raw, "empty");
  if (text.size() > kMaxNumberLength) bad_number(text.substr(0, 20), "longer than 64 characters");

  std::string_view body = text;
  bool negative = false;
  if (body.front() == '+' || body.front() == '-') {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }

  Rational value;
  if (const auto slash = body.find('/'); slash != std::string_view::npos) {
    const auto num = body.substr(0, slash);
    const auto den = body.substr(slash + 1);
    if (!all_digits(num) || !all_digits(den)) bad_number(text, "expected an integer, p/q or a finite decimal");
    const Rational d(integer_from_digits(den));
    if (d == 0) bad_number(text, "zero denominator");
    value = Rational(integer_from_digits(num)) / d;
  } else if (const auto dot = body.find('.'); dot != std::string_view::npos) {
    const auto whole = body.substr(0, dot);
    const auto frac = body.substr(dot + 1);
    if ((whole.empty() && frac.empty()) || (!whole.empty() && !all_digits(whole)) ||
        (!frac.empty() && !all_digits(frac)))
      bad_number(text, "expected an integer, p/q or a finite decimal");
    Rational scale(1);
    for (std::size_t i = 0; i < frac.size(); ++i) scale *= 10;
    const Rational w = whole.empty() ? Rational(0) : Rational(integer_from_digits(whole));
    const Rational f = frac.empty() ? Rational(0) : Rational(integer_from_digits(frac));
    value = w + f / scale;
  } else {
    if (!all_digits(body)) bad_number(text, "expected an integer, p/q or a finite decimal");
    value = integer_from_digits(body);
  }
  return negative ? Rational(-value) : value;
}

std::string to_string(const Rational& value) {
  const auto num = boost::multiprecision::numerator(value);
  const auto den = boost::multiprecision::denominator(value);
  if (den == 1) return num.str();
  return num.str() + "/" + den.str();
}

double to_double(const Rational& value) { return value.convert_to<double>(); }

std::vector<double> to_doubles(const std::vector<Rational>& values) {
  std::vector<double> out;
  out.reserve(values.size());
  for (const auto& v : values) out.push_back(to_double(v));
  return out;
}

Point parse_point(std::string_view raw) {
  const std::string_view text = trim(raw);
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "inf" || lower == "infinity" || lower == "\xE2\x88\x9E") return Point::infinity();
  return Point::finite(parse_rational(text));
}

std::string to_string(const Point& point) { return point.is_infinity ? "inf" : to_string(point.value); }

std::vector<Point> parse_point_list(std::string_view csv) {
  std::vector<Point> points;
  std::size_t start = 0;
  while (true) {
    const auto comma = csv.find(',', start);
    const auto item = csv.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (trim(item).empty()) throw InputError("empty entry in point list '" + std::string(csv) + "'");
    points.push_back(parse_point(item));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return points;
}

RationalMatrix RationalMatrix::transposed() const {
  RationalMatrix t(cols_, rows_);
  for (std::size_t i = 0; i < rows_; ++i)
    for (std::size_t j = 0; j < cols_; ++j) t(j, i) = (*this)(i, j);
  return t;
}

RationalMatrix operator*(const RationalMatrix& a, const RationalMatrix& b) {
  if (a.cols() != b.rows()) throw std::invalid_argument("matrix product: inner dimensions differ");
  RationalMatrix c(a.rows(), b.cols());
  for (std::size_t i = 0; i < a.rows(); ++i)
    for (std::size_t k = 0; k < a.cols(); ++k) {
      if (a(i, k) == 0) continue;
      for (std::size_t j = 0; j < b.cols(); ++j) c(i, j) += a(i, k) * b(k, j);
    }
  return c;
}

RationalMatrix inverse(const RationalMatrix& square) {
  const std::size_t n = square.rows();
  if (square.cols() != n) throw std::invalid_argument("inverse: matrix is not square");
  RationalMatrix work = square;
  RationalMatrix inv(n, n);
  for (std::size_t i = 0; i < n; ++i) inv(i, i) = 1;
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    while (pivot < n && work(pivot, col) == 0) ++pivot;
    if (pivot == n) throw std::domain_error("inverse: matrix is singular");
    if (pivot != col)
      for (std::size_t j = 0; j < n; ++j) {
        std::swap(work(pivot, j), work(col, j));
        std::swap(inv(pivot, j), inv(col, j));
      }
    const Rational scale = 1 / work(col, col);
    for (std::size_t j = 0; j < n; ++j) {
      work(col, j) *= scale;
      inv(col, j) *= scale;
    }
    for (std::size_t row = 0; row < n; ++row) {
      if (row == col || work(row, col) == 0) continue;
      const Rational factor = work(row, col);
      for (std::size_t j = 0; j < n; ++j) {
        work(row, j) -= factor * work(col, j);
        inv(row, j) -= factor * inv(col, j);
      }
    }
  }
  return inv;
}

RationalMatrix pseudo_inverse(const RationalMatrix& m) {
  const RationalMatrix mt = m.transposed();
  if (m.rows() <= m.cols()) return mt * inverse(m * mt);  // full row rank
  return inverse(mt * m) * mt;                            // full column rank
}

}  // namespace nova::exact
