// Double-precision twin of build_transform and of the metrics the search optimises. The fitness
// loop evaluates hundreds of thousands of candidates, so it must not allocate GMP numbers; the
// same Cook-Toom formulas (cook_toom_formulas.hpp) run on doubles here. Exact rationals still
// build, verify and measure every transform that is reported or written.
#pragma once

#include "nova/exact/cook_toom.hpp"

#include <Eigen/Core>

#include <vector>

namespace nova::exact {

struct FastTransform {
  Eigen::MatrixXd AT;  // m x n
  Eigen::MatrixXd G;   // n x r
  Eigen::MatrixXd BT;  // n x n
};

// n-1 finite points (distinctness is the caller's business: coincident points give infinities).
FastTransform build_transform_fast(TileSize tile, const std::vector<double>& finite_points, Scaling scaling);

// kappa2 of the square Vandermonde matrix of the finite points (paper eq. 1); +infinity when
// points coincide.
double kappa2_vandermonde(const std::vector<double>& finite_points);

// amp2D of docs/design.md §6; invariant under row scaling.
double amplification_2d(const Eigen::MatrixXd& AT, const Eigen::MatrixXd& G, const Eigen::MatrixXd& BT);

// ||T - T_rec||_F of paper eq. 5: how far the double-precision Cook-Toom factors are from the
// correlation tensor T[i][j][k] = [j == i + k]. Zero in exact arithmetic; rounding makes it grow
// as points approach each other.
double tensor_error(const FastTransform& transform);

// Largest magnitude a 2D-transformed value can take at Winograd position (p, q) for data of
// magnitude <= 1 is rowsum_p * rowsum_q, rowsum_p = sum_j |M[p][j]|. These are the smallest and
// largest of those full-scale magnitudes over all positions, for B^T d B and G g G^T.
struct TransformedRange {
  double smallest_full_scale = 0;
  double largest_full_scale = 0;
};
TransformedRange transformed_range(const FastTransform& transform);

}  // namespace nova::exact
