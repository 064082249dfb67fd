// The Cook-Toom formulas of docs/design.md §3, written once for any number type: exact rationals
// build the transforms that are verified and stored, doubles feed the search's fitness loop. One
// copy guarantees that what the search optimises is exactly what gets built.
#pragma once

#include "nova/exact/cook_toom.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <type_traits>
#include <vector>

namespace nova::exact::detail {

inline double approximate(const Rational& x) { return to_double(x); }
inline double approximate(double x) { return x; }

template <class Scalar>
Scalar power_of_two(int exponent) {
  if constexpr (std::is_floating_point_v<Scalar>) {
    return std::ldexp(Scalar(1), exponent);
  } else {
    Scalar s = 1;
    for (int i = 0; i < std::abs(exponent); ++i) s *= 2;
    return exponent >= 0 ? s : Scalar(1 / s);
  }
}

// Coefficients (ascending powers) of prod_{j != skip} (t - roots[j]), padded with zeros to `length`.
template <class Scalar>
std::vector<Scalar> monic_product(const std::vector<Scalar>& roots, std::size_t skip, std::size_t length) {
  std::vector<Scalar> coeffs(length + 1, Scalar(0));
  coeffs[0] = 1;
  std::size_t degree = 0;
  for (std::size_t j = 0; j < roots.size(); ++j) {
    if (j == skip) continue;
    ++degree;
    for (std::size_t d = degree; d > 0; --d) coeffs[d] = coeffs[d - 1] - roots[j] * coeffs[d];
    coeffs[0] = -roots[j] * coeffs[0];
  }
  coeffs.resize(length);
  return coeffs;
}

// 2^round(-log2 |row|_2): the power of two that brings a row's 2-norm closest to 1.
template <class Scalar, class Matrix>
Scalar power_of_two_normaliser(const Matrix& m, std::size_t row, std::size_t cols) {
  Scalar norm2 = 0;
  for (std::size_t j = 0; j < cols; ++j) norm2 += m(row, j) * m(row, j);
  return power_of_two<Scalar>(static_cast<int>(std::lround(-0.5 * std::log2(approximate(norm2)))));
}

// Fills AT (m x n), G (n x r) and BT (n x n), which the caller passes in zero-initialised, from
// n-1 distinct finite points; infinity is the last point.
template <class Scalar, class Matrix>
void cook_toom_matrices(TileSize tile, const std::vector<Scalar>& finite_points, Scaling scaling, Matrix& AT,
                        Matrix& G, Matrix& BT) {
  const auto m = static_cast<std::size_t>(tile.m), r = static_cast<std::size_t>(tile.r),
             n = static_cast<std::size_t>(tile.n());
  const std::size_t inf = n - 1;
  for (std::size_t i = 0; i < inf; ++i) {
    const Scalar& a = finite_points[i];
    Scalar f = 1;  // Lagrange denominator prod_{j != i} (a_i - a_j)
    for (std::size_t j = 0; j < inf; ++j)
      if (j != i) f *= a - finite_points[j];
    const Scalar in_a = scaling == Scaling::DenominatorsInA ? Scalar(1 / f) : Scalar(1);
    const Scalar in_g =
        (scaling == Scaling::DenominatorsInG || scaling == Scaling::Balanced) ? Scalar(1 / f) : Scalar(1);
    const Scalar in_b = scaling == Scaling::DenominatorsInB ? Scalar(1 / f) : Scalar(1);

    Scalar power = 1;
    for (std::size_t k = 0; k < std::max(m, r); ++k) {
      if (k < m) AT(k, i) = power * in_a;
      if (k < r) G(i, k) = power * in_g;
      power *= a;
    }
    const auto row = monic_product(finite_points, i, n);
    for (std::size_t j = 0; j < n; ++j) BT(i, j) = row[j] * in_b;
  }
  AT(m - 1, inf) = 1;
  G(inf, r - 1) = 1;
  const auto last = monic_product(finite_points, finite_points.size(), n);
  for (std::size_t j = 0; j < n; ++j) BT(inf, j) = last[j];

  if (scaling == Scaling::Balanced) {
    for (std::size_t p = 0; p < n; ++p) {
      const Scalar sg = power_of_two_normaliser<Scalar>(G, p, r);
      const Scalar sb = power_of_two_normaliser<Scalar>(BT, p, n);
      for (std::size_t k = 0; k < r; ++k) G(p, k) *= sg;
      for (std::size_t j = 0; j < n; ++j) BT(p, j) *= sb;
      const Scalar sa = 1 / (sg * sb);
      for (std::size_t i = 0; i < m; ++i) AT(i, p) *= sa;
    }
  }
}

}  // namespace nova::exact::detail
