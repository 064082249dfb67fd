#include "nova/exact/metrics.hpp"

#include "nova/exact/fast_metrics.hpp"

#include <Eigen/SVD>

#include <algorithm>
#include <cmath>

namespace nova::exact {
namespace {

Eigen::MatrixXd to_eigen(const RationalMatrix& m) {
  Eigen::MatrixXd d(static_cast<Eigen::Index>(m.rows()), static_cast<Eigen::Index>(m.cols()));
  for (std::size_t i = 0; i < m.rows(); ++i)
    for (std::size_t j = 0; j < m.cols(); ++j)
      d(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = to_double(m(i, j));
  return d;
}

// The largest singular value is computed to full relative accuracy in double, whatever the
// conditioning; the smallest is not, which is why kappa2 uses the exact inverse instead.
double sigma_max(const Eigen::MatrixXd& m) { return Eigen::JacobiSVD<Eigen::MatrixXd>(m).singularValues()(0); }

double kappa2(const RationalMatrix& m) { return sigma_max(to_eigen(m)) * sigma_max(to_eigen(pseudo_inverse(m))); }

double max_abs(const Eigen::MatrixXd& m) { return m.cwiseAbs().maxCoeff(); }

}  // namespace

RationalMatrix vandermonde(const std::vector<Rational>& finite_points) {
  const std::size_t k = finite_points.size();
  RationalMatrix v(k, k);
  for (std::size_t i = 0; i < k; ++i) {
    Rational power = 1;
    for (std::size_t j = 0; j < k; ++j) {
      v(i, j) = power;
      power *= finite_points[i];
    }
  }
  return v;
}

double amplification_2d(const RationalMatrix& AT, const RationalMatrix& G, const RationalMatrix& BT) {
  return amplification_2d(to_eigen(AT), to_eigen(G), to_eigen(BT));
}

Metrics compute_metrics(const Transform& t) {
  Metrics out;
  const RationalMatrix V = vandermonde(t.finite_points);
  const RationalMatrix Vinv = inverse(V);
  const Eigen::MatrixXd v = to_eigen(V), vinv = to_eigen(Vinv);
  auto norm1 = [](const Eigen::MatrixXd& m) { return m.cwiseAbs().colwise().sum().maxCoeff(); };
  auto norm_inf = [](const Eigen::MatrixXd& m) { return m.cwiseAbs().rowwise().sum().maxCoeff(); };
  out.kappa1_V = norm1(v) * norm1(vinv);
  out.kappaInf_V = norm_inf(v) * norm_inf(vinv);
  out.kappaF_V = v.norm() * vinv.norm();
  out.kappa2_V = sigma_max(v) * sigma_max(vinv);
  out.kappa2_2d = out.kappa2_V * out.kappa2_V;

  out.kappa2_AT = kappa2(t.AT);
  out.kappa2_G = kappa2(t.G);
  out.kappa2_BT = kappa2(t.BT);

  const Eigen::MatrixXd at = to_eigen(t.AT), g = to_eigen(t.G), bt = to_eigen(t.BT);
  out.max_abs_AT = max_abs(at);
  out.max_abs_G = max_abs(g);
  out.max_abs_BT = max_abs(bt);
  out.max_abs_entry = std::max({out.max_abs_AT, out.max_abs_G, out.max_abs_BT});
  out.norm_product = sigma_max(at) * sigma_max(bt) * sigma_max(g);

  out.amp2d = amplification_2d(t.AT, t.G, t.BT);
  out.predicted_error_fp16 = kErrorModelConstant * kUnitRoundoffFp16 * out.amp2d;
  out.predicted_error_bf16 = kErrorModelConstant * kUnitRoundoffBf16 * out.amp2d;
  return out;
}

}  // namespace nova::exact
