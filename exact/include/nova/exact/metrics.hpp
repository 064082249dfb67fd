// Conditioning and precision metrics of a transform (docs/design.md §3 and §6).
#pragma once

#include "nova/exact/cook_toom.hpp"

#include <string>
#include <vector>

namespace nova::exact {

struct Metrics {
  // Vandermonde matrix of the n-1 finite points, in four norms.
  double kappa1_V = 0, kappa2_V = 0, kappaInf_V = 0, kappaF_V = 0;
  // Spectral condition numbers of the transform matrices (rectangular ones: sigma_max/sigma_min).
  double kappa2_AT = 0, kappa2_G = 0, kappa2_BT = 0;
  // 2D conditioning: kappa2(V (x) V) = kappa2(V)^2 (paper Table 17).
  double kappa2_2d = 0;
  double max_abs_AT = 0, max_abs_G = 0, max_abs_BT = 0, max_abs_entry = 0;
  // ||A||_2 ||B||_2 ||G||_2, the paper's forward-error bound factor.
  double norm_product = 0;
  // Squared 1D output amplification (docs/design.md §6); invariant under row scaling.
  double amp2d = 0;
  // 0.7 u amp2D: the precision model's predicted relative L2 error with storage type u.
  double predicted_error_fp16 = 0, predicted_error_bf16 = 0;
};

// How the numbers are obtained, recorded in every JSON: each kappa2 is sigma_max(M) sigma_max(M^+)
// with the (pseudo-)inverse computed exactly, so double precision suffices at any conditioning.
inline constexpr const char* kMetricsMethod =
    "double (Eigen JacobiSVD) on exact rational matrices and exact rational (pseudo-)inverses";

inline constexpr double kUnitRoundoffFp16 = 1.0 / 2048.0;  // 2^-11
inline constexpr double kUnitRoundoffBf16 = 1.0 / 256.0;   // 2^-8
inline constexpr double kErrorModelConstant = 0.7;          // docs/design.md §6, measured

Metrics compute_metrics(const Transform& transform);

// Square Vandermonde matrix V[i][j] = a_i^j of the finite points.
RationalMatrix vandermonde(const std::vector<Rational>& finite_points);

double amplification_2d(const RationalMatrix& AT, const RationalMatrix& G, const RationalMatrix& BT);

}  // namespace nova::exact
