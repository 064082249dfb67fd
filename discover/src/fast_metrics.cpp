#include "nova/discover/fast_metrics.hpp"

#include "cook_toom_formulas.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <limits>

namespace nova::discover {

FastTransform build_transform_fast(TileSize tile, const std::vector<double>& finite_points, Scaling scaling) {
  const Eigen::Index m = tile.m, r = tile.r, n = tile.n();
  FastTransform t{Eigen::MatrixXd::Zero(m, n), Eigen::MatrixXd::Zero(n, r), Eigen::MatrixXd::Zero(n, n)};
  detail::cook_toom_matrices(tile, finite_points, scaling, t.AT, t.G, t.BT);
  return t;
}

namespace {

// Square matrices up to kMaxPoints on the stack: the fitness loop must not allocate.
using SmallMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxPoints, kMaxPoints>;

// sigma_max(M)^2 as the largest eigenvalue of M^T M, which double precision gets to full
// relative accuracy however ill-conditioned M is (unlike sigma_min).
double largest_singular_value_squared(const SmallMatrix& m) {
  SmallMatrix gram;
  gram.noalias() = m.transpose().lazyProduct(m);  // coefficient-wise: no GEMM set-up for tiny sizes
  return Eigen::SelfAdjointEigenSolver<SmallMatrix>(gram, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
}

}  // namespace

double kappa2_vandermonde(const std::vector<double>& finite_points) {
  // kappa2 = sigma_max(V) sigma_max(V^-1), as the exact metrics compute it. Column i of V^-1 holds
  // the coefficients of the Lagrange polynomial prod_{j != i} (t - a_j) / f_i: the B^T formula.
  const auto k = static_cast<Eigen::Index>(finite_points.size());
  SmallMatrix v(k, k), inverse(k, k);
  for (Eigen::Index i = 0; i < k; ++i) {
    double power = 1, f = 1;
    for (Eigen::Index j = 0; j < k; ++j, power *= finite_points[i]) {
      v(i, j) = power;
      if (j != i) f *= finite_points[i] - finite_points[j];
    }
    const auto lagrange = detail::monic_product(finite_points, static_cast<std::size_t>(i), finite_points.size());
    for (Eigen::Index d = 0; d < k; ++d) inverse(d, i) = lagrange[d] / f;
  }
  if (!inverse.allFinite()) return std::numeric_limits<double>::infinity();  // coincident points
  const double kappa = std::sqrt(largest_singular_value_squared(v) * largest_singular_value_squared(inverse));
  return std::isfinite(kappa) ? kappa : std::numeric_limits<double>::infinity();
}

double amplification_2d(const Eigen::MatrixXd& AT, const Eigen::MatrixXd& G, const Eigen::MatrixXd& BT) {
  double sum = 0;
  for (Eigen::Index p = 0; p < AT.cols(); ++p)
    sum += AT.col(p).squaredNorm() * BT.row(p).squaredNorm() * G.row(p).squaredNorm();
  return sum / static_cast<double>(AT.rows() * G.cols());
}

double tensor_error(const FastTransform& t) {
  const Eigen::Index m = t.AT.rows(), r = t.G.cols(), n = t.BT.rows();
  double squared = 0;
  Eigen::RowVectorXd weights(n), fibre(n);
  for (Eigen::Index i = 0; i < m; ++i)
    for (Eigen::Index k = 0; k < r; ++k) {
      // T_rec[i][.][k] = sum_p AT[i][p] G[p][k] BT[p][.]
      for (Eigen::Index p = 0; p < n; ++p) weights(p) = t.AT(i, p) * t.G(p, k);
      fibre.noalias() = weights.lazyProduct(t.BT);
      fibre(i + k) -= 1;  // T[i][i+k][k] = 1
      squared += fibre.squaredNorm();
    }
  return std::sqrt(squared);
}

TransformedRange transformed_range(const FastTransform& t) {
  const Eigen::VectorXd input_rows = t.BT.cwiseAbs().rowwise().sum();
  const Eigen::VectorXd filter_rows = t.G.cwiseAbs().rowwise().sum();
  const double smallest = std::min(input_rows.minCoeff(), filter_rows.minCoeff());
  const double largest = std::max(input_rows.maxCoeff(), filter_rows.maxCoeff());
  return {smallest * smallest, largest * largest};
}

}  // namespace nova::discover
