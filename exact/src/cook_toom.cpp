#include "nova/exact/cook_toom.hpp"
#include "nova/exact/enum_names.hpp"

#include "cook_toom_formulas.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>

namespace nova::exact {
namespace {

int parse_tile_int(std::string_view text, std::string_view whole) {
  if (text.empty() || text.size() > 6 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw InputError("invalid tile '" + std::string(whole) + "': expected M,R or MxR with positive integers");
  return std::stoi(std::string(text));
}

std::string describe_failure(std::string_view what, const std::string& index, const Rational& sum,
                             int expected) {
  return std::string(what) + " identity fails at " + index + ": sum is " + to_string(sum) + ", expected " +
         std::to_string(expected);
}

RationalMatrix kronecker(const RationalMatrix& a, const RationalMatrix& b) {
  RationalMatrix k(a.rows() * b.rows(), a.cols() * b.cols());
  for (std::size_t i = 0; i < a.rows(); ++i)
    for (std::size_t j = 0; j < a.cols(); ++j)
      for (std::size_t p = 0; p < b.rows(); ++p)
        for (std::size_t q = 0; q < b.cols(); ++q) k(i * b.rows() + p, j * b.cols() + q) = a(i, j) * b(p, q);
  return k;
}

void check_shapes(TileSize tile, const RationalMatrix& AT, const RationalMatrix& G, const RationalMatrix& BT) {
  const auto m = static_cast<std::size_t>(tile.m), r = static_cast<std::size_t>(tile.r),
             n = static_cast<std::size_t>(tile.n());
  if (AT.rows() != m || AT.cols() != n || G.rows() != n || G.cols() != r || BT.rows() != n || BT.cols() != n)
    throw InputError("matrix shapes do not match F(" + std::to_string(tile.m) + "," + std::to_string(tile.r) +
                     "): expected AT " + std::to_string(m) + "x" + std::to_string(n) + ", G " + std::to_string(n) +
                     "x" + std::to_string(r) + ", BT " + std::to_string(n) + "x" + std::to_string(n));
}

}  // namespace

void validate_tile(TileSize tile) {
  const std::string name = "F(" + std::to_string(tile.m) + "," + std::to_string(tile.r) + ")";
  if (tile.m < 1) throw InputError("invalid tile " + name + ": m must be at least 1");
  if (tile.r < 1) throw InputError("invalid tile " + name + ": r must be at least 1");
  if (tile.m > kMaxOutputTile) throw InputError("invalid tile " + name + ": m is limited to " + std::to_string(kMaxOutputTile));
  if (tile.r > kMaxFilterTaps) throw InputError("invalid tile " + name + ": r is limited to " + std::to_string(kMaxFilterTaps));
  if (tile.n() < 2) throw InputError("invalid tile " + name + ": F(1,1) needs no transform");
  if (tile.n() > kMaxPoints) throw InputError("invalid tile " + name + ": m + r - 1 is limited to " + std::to_string(kMaxPoints));
}

TileSize parse_tile(std::string_view text) {
  auto sep = text.find(',');
  if (sep == std::string_view::npos) sep = text.find_first_of("xX");
  if (sep == std::string_view::npos)
    throw InputError("invalid tile '" + std::string(text) + "': expected M,R or MxR (for example 6,3)");
  TileSize tile{parse_tile_int(text.substr(0, sep), text), parse_tile_int(text.substr(sep + 1), text)};
  validate_tile(tile);
  return tile;
}

namespace {
// The JSON names first; the short command-line forms after them.
constexpr EnumName<Scaling> kScalingNames[] = {
    {Scaling::DenominatorsInG, "denominators-in-G"}, {Scaling::DenominatorsInA, "denominators-in-A"},
    {Scaling::DenominatorsInB, "denominators-in-B"}, {Scaling::Balanced, "balanced"},
    {Scaling::BalancedUnits, "balanced-units"},      {Scaling::DenominatorsInG, "G"},
    {Scaling::DenominatorsInA, "A"},                 {Scaling::DenominatorsInB, "B"},
    {Scaling::BalancedUnits, "units"}};
}  // namespace

Scaling parse_scaling(std::string_view text) { return parse_enum<Scaling>(kScalingNames, text, "scaling"); }

std::string_view scaling_name(Scaling scaling) { return enum_name<Scaling>(kScalingNames, scaling); }

bool is_valid_pointset_label(std::string_view label) {
  return !label.empty() && label.size() <= 48 &&
         std::all_of(label.begin(), label.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

bool same_transform(const Transform& a, const Transform& b) {
  if (!(a.tile == b.tile) || a.scaling != b.scaling) return false;
  std::vector<Rational> x = a.finite_points, y = b.finite_points;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x == y;
}

std::string transform_name(TileSize tile, std::string_view pointset) {
  if (!is_valid_pointset_label(pointset))
    throw InputError("invalid point-set name '" + std::string(pointset) +
                     "': use 1 to 48 lower-case letters, digits or '_'");
  return "f" + std::to_string(tile.m) + "x" + std::to_string(tile.r) + "_" + std::string(pointset);
}

bool follows_naming(TileSize tile, std::string_view name) {
  const std::string prefix = "f" + std::to_string(tile.m) + "x" + std::to_string(tile.r) + "_";
  return name.starts_with(prefix) && is_valid_pointset_label(name.substr(prefix.size()));
}

std::vector<Rational> standard_points(TileSize tile) {
  validate_tile(tile);
  std::vector<Rational> points{Rational(0)};
  for (int k = 1; static_cast<int>(points.size()) < tile.n() - 1; ++k) {
    points.emplace_back(k);
    if (static_cast<int>(points.size()) < tile.n() - 1) points.emplace_back(-k);
  }
  points.resize(static_cast<std::size_t>(tile.n() - 1));
  return points;
}

std::vector<Rational> finite_points_for_tile(TileSize tile, const std::vector<Point>& points) {
  validate_tile(tile);
  std::vector<Rational> finite;
  int infinities = 0;
  for (const auto& p : points) {
    if (p.is_infinity) ++infinities;
    else finite.push_back(p.value);
  }
  if (infinities > 1) throw InputError("the point at infinity is given " + std::to_string(infinities) + " times; it may appear once");
  const int want = tile.n() - 1;
  if (static_cast<int>(finite.size()) != want)
    throw InputError("F(" + std::to_string(tile.m) + "," + std::to_string(tile.r) + ") needs " + std::to_string(want) +
                     " finite points (plus infinity), got " + std::to_string(finite.size()));
  std::set<Rational> seen;
  for (const auto& p : finite)
    if (!seen.insert(p).second) throw InputError("duplicate point " + to_string(p) + ": points must be distinct");
  return finite;
}

std::vector<Point> Transform::points() const {
  std::vector<Point> all;
  for (const auto& p : finite_points) all.push_back(Point::finite(p));
  all.push_back(Point::infinity());
  return all;
}

Transform build_transform(TileSize tile, std::vector<Rational> finite_points, Scaling scaling) {
  {
    std::vector<Point> as_points;
    for (const auto& p : finite_points) as_points.push_back(Point::finite(p));
    finite_points = finite_points_for_tile(tile, as_points);  // validates count and distinctness
  }
  const auto m = static_cast<std::size_t>(tile.m), r = static_cast<std::size_t>(tile.r),
             n = static_cast<std::size_t>(tile.n());
  Transform t{tile, finite_points, scaling, RationalMatrix(m, n), RationalMatrix(n, r), RationalMatrix(n, n)};
  detail::cook_toom_matrices(tile, t.finite_points, scaling, t.AT, t.G, t.BT);
  return t;
}

Verification verify_identity_1d(TileSize tile, const RationalMatrix& AT, const RationalMatrix& G,
                                const RationalMatrix& BT) {
  check_shapes(tile, AT, G, BT);
  const auto m = AT.rows(), r = G.cols(), n = BT.rows();
  Rational sum;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t k = 0; k < r; ++k) {
        sum = 0;
        for (std::size_t p = 0; p < n; ++p)
          if (AT(i, p) != 0 && BT(p, j) != 0) sum += AT(i, p) * G(p, k) * BT(p, j);
        const int expected = j == i + k ? 1 : 0;
        if (sum != expected)
          return {false, describe_failure("1D", "(i, j, k) = (" + std::to_string(i) + ", " + std::to_string(j) +
                                                    ", " + std::to_string(k) + ")",
                                          sum, expected)};
      }
  return {};
}

double verification_2d_products(TileSize tile) {
  const double m = tile.m, r = tile.r, n = tile.n();
  return m * m * n * n * n * n * r * r;
}

Verification verify_identity_2d(TileSize tile, const RationalMatrix& AT, const RationalMatrix& G,
                                const RationalMatrix& BT) {
  check_shapes(tile, AT, G, BT);
  if (const double products = verification_2d_products(tile); products > kMax2dVerificationProducts) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "the 2D identity of F(%d,%d) needs %.1e exact products, more than the limit %.0e (a few seconds); "
                  "the 1D identity implies it",
                  tile.m, tile.r, products, kMax2dVerificationProducts);
    throw InputError(text);
  }
  const RationalMatrix AT2 = kronecker(AT, AT), G2 = kronecker(G, G), BT2 = kronecker(BT, BT);
  const auto m = AT.rows(), r = G.cols(), n = BT.rows();
  Rational sum;
  for (std::size_t I = 0; I < m * m; ++I)
    for (std::size_t J = 0; J < n * n; ++J)
      for (std::size_t K = 0; K < r * r; ++K) {
        sum = 0;
        for (std::size_t p = 0; p < n * n; ++p)
          if (AT2(I, p) != 0 && BT2(p, J) != 0) sum += AT2(I, p) * G2(p, K) * BT2(p, J);
        const bool on = J / n == I / m + K / r && J % n == I % m + K % r;
        const int expected = on ? 1 : 0;
        if (sum != expected)
          return {false, describe_failure("2D",
                                          "(i1, i2, j1, j2, k1, k2) = (" + std::to_string(I / m) + ", " +
                                              std::to_string(I % m) + ", " + std::to_string(J / n) + ", " +
                                              std::to_string(J % n) + ", " + std::to_string(K / r) + ", " +
                                              std::to_string(K % r) + ")",
                                          sum, expected)};
      }
  return {};
}

}  // namespace nova::exact
