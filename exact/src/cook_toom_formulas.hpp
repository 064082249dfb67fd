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

// Balanced-units: with the balanced scales fixed, column p of AT times a power of two t_p and row p of G divided
// by it (exact; U's scale moves by t_p, amp2D does not change) so that as many rows of AT as the powers of two allow
// hold an entry of +-1. An output row with no such entry costs the output transform one multiplication more than its
// sums (its first product; every other term is a fused multiply-add or an add either way). Greedy: the (column,
// factor) that gives units to the most rows still without, the factor nearest 1 on a tie; columns of equal
// magnitudes (a point and its negative) take one factor, so that the transform's sums and differences of the pair
// stay. Rows without a unit after that have no power-of-two entry left to scale.
template <class Scalar, class Matrix>
void unit_rows_of_AT(std::size_t m, std::size_t n, std::size_t r, Matrix& AT, Matrix& G) {
  const auto magnitude = [&](std::size_t i, std::size_t p) { return AT(i, p) < 0 ? Scalar(-AT(i, p)) : AT(i, p); };
  std::vector<std::size_t> group(n);  // the first column of p's magnitudes
  for (std::size_t p = 0; p < n; ++p) {
    group[p] = p;
    for (std::size_t q = 0; q < p && group[p] == p; ++q) {
      bool same = true;
      for (std::size_t i = 0; i < m && same; ++i) same = magnitude(i, q) == magnitude(i, p);
      if (same) group[p] = q;
    }
  }
  std::vector<int> exponent(n, 0);
  std::vector<bool> fixed(n, false), has_unit(m, false);
  for (;;) {
    std::size_t best_column = n, best_count = 0;
    int best_exponent = 0;
    for (std::size_t p = 0; p < n; ++p) {
      if (group[p] != p || fixed[p]) continue;
      for (std::size_t k = 0; k < m; ++k) {
        if (AT(k, p) == 0 || has_unit[k]) continue;
        int e = 0;
        std::frexp(approximate(magnitude(k, p)), &e);  // |AT(k, p)| = 2^(e - 1) where a power of two (checked below)
        const Scalar t = power_of_two<Scalar>(1 - e);
        std::size_t count = 0;
        for (std::size_t i = 0; i < m; ++i) count += !has_unit[i] && magnitude(i, p) * t == 1;
        const bool better =
            count > best_count || (count == best_count && count > 0 && std::abs(1 - e) < std::abs(best_exponent));
        if (better) best_column = p, best_count = count, best_exponent = 1 - e;
      }
    }
    if (best_column == n) break;
    fixed[best_column] = true;
    exponent[best_column] = best_exponent;
    const Scalar t = power_of_two<Scalar>(best_exponent);
    for (std::size_t i = 0; i < m; ++i)
      if (magnitude(i, best_column) * t == 1) has_unit[i] = true;
  }
  for (std::size_t p = 0; p < n; ++p) {
    const Scalar t = power_of_two<Scalar>(exponent[group[p]]);
    for (std::size_t i = 0; i < m; ++i) AT(i, p) *= t;
    for (std::size_t k = 0; k < r; ++k) G(p, k) /= t;
  }
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
    const bool balanced = scaling == Scaling::Balanced || scaling == Scaling::BalancedUnits;
    const Scalar in_g = (scaling == Scaling::DenominatorsInG || balanced) ? Scalar(1 / f) : Scalar(1);
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

  if (scaling == Scaling::Balanced || scaling == Scaling::BalancedUnits) {
    for (std::size_t p = 0; p < n; ++p) {
      const Scalar sg = power_of_two_normaliser<Scalar>(G, p, r);
      const Scalar sb = power_of_two_normaliser<Scalar>(BT, p, n);
      for (std::size_t k = 0; k < r; ++k) G(p, k) *= sg;
      for (std::size_t j = 0; j < n; ++j) BT(p, j) *= sb;
      const Scalar sa = 1 / (sg * sb);
      for (std::size_t i = 0; i < m; ++i) AT(i, p) *= sa;
    }
  }
  if (scaling == Scaling::BalancedUnits) unit_rows_of_AT<Scalar>(m, n, r, AT, G);
}

}  // namespace nova::exact::detail
