// The paper's printed numbers must reproduce to the digits it prints (Tables 1, 2, 3, 16, 17, 33)
// and amp2D must match docs/design.md §6.
#include "nova/exact/metrics.hpp"

#include <Eigen/SVD>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/eigen.hpp>
#include <catch2/catch.hpp>

#include <cmath>

using namespace nova::exact;

namespace {

Metrics metrics_of(int m, int r, const char* points) {
  const TileSize tile{m, r};
  const auto finite = std::string(points) == "standard" ? standard_points(tile)
                                                         : finite_points_for_tile(tile, parse_point_list(points));
  return compute_metrics(build_transform(tile, finite, Scaling::DenominatorsInG));
}

// True when `value / unit`, rounded to `decimals` places, is the printed number.
bool prints_as(double value, double printed, int decimals, double unit = 1.0) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value / unit * scale) == std::round(printed * scale);
}

constexpr const char* kNova43 = "0,5/6,-5/6,7/6,-7/6";
constexpr const char* kNova63 = "0,3/5,-3/5,1,-1,7/6,-7/6";
constexpr const char* kNova83 = "0,2/5,-2/5,5/6,-5/6,1,-1,7/6,-7/6";

}  // namespace

TEST_CASE("kappa2(V) of paper Tables 1, 2, 16 and 33") {
  CHECK(prints_as(metrics_of(2, 3, "standard").kappa2_V, 3.2, 1));
  CHECK(prints_as(metrics_of(4, 3, "standard").kappa2_V, 42.5, 1));
  CHECK(prints_as(metrics_of(4, 3, kNova43).kappa2_V, 14.5, 1));
  CHECK(prints_as(metrics_of(6, 3, "standard").kappa2_V, 2075, 0));
  CHECK(prints_as(metrics_of(6, 3, kNova63).kappa2_V, 77, 0));
  CHECK(prints_as(metrics_of(8, 3, "standard").kappa2_V, 196.9, 1, 1e3));
  CHECK(prints_as(metrics_of(8, 3, kNova83).kappa2_V, 474, 0));
  CHECK(prints_as(metrics_of(4, 5, "standard").kappa2_V, 2075, 0));
  CHECK(prints_as(metrics_of(6, 5, "standard").kappa2_V, 196.9, 1, 1e3));
}

TEST_CASE("kappa2 of A^T, B^T, G of paper Table 3") {
  struct Row { int m; const char* points; double at; int at_dec; double bt; int bt_dec; double g; int g_dec; double unit_at = 1, unit_bt = 1; };
  const Row rows[] = {
      {4, "standard", 11.3, 1, 20.1, 1, 4.0, 1},
      {4, kNova43, 4.3, 1, 10.4, 1, 2.3, 1},
      {6, "standard", 406, 0, 430, 0, 26, 0},
      {6, kNova63, 19, 0, 56, 0, 3.1, 1},
      {8, "standard", 30.3, 1, 16.8, 1, 355, 0, 1e3, 1e3},
      {8, kNova83, 112, 0, 242, 0, 3.3, 1},
  };
  for (const Row& row : rows) {
    INFO("F(" << row.m << ",3) " << row.points);
    const Metrics mt = metrics_of(row.m, 3, row.points);
    CHECK(prints_as(mt.kappa2_AT, row.at, row.at_dec, row.unit_at));
    CHECK(prints_as(mt.kappa2_BT, row.bt, row.bt_dec, row.unit_bt));
    CHECK(prints_as(mt.kappa2_G, row.g, row.g_dec));
  }
}

TEST_CASE("2D kappa2 of paper Table 17 is kappa2(V) squared") {
  CHECK(prints_as(metrics_of(2, 3, "standard").kappa2_2d, 10, 0));
  CHECK(prints_as(metrics_of(4, 3, "standard").kappa2_2d, 1804, 0));
  CHECK(prints_as(metrics_of(4, 3, kNova43).kappa2_2d, 212, 0));
  CHECK(prints_as(metrics_of(6, 3, "standard").kappa2_2d, 4.3, 1, 1e6));
  CHECK(prints_as(metrics_of(6, 3, kNova63).kappa2_2d, 5873, 0));
  CHECK(prints_as(metrics_of(8, 3, "standard").kappa2_2d, 3.9, 1, 1e10));
  CHECK(prints_as(metrics_of(8, 3, kNova83).kappa2_2d, 225, 0, 1e3));
}

TEST_CASE("amp2D of docs/design.md §6") {
  CHECK(prints_as(metrics_of(6, 3, "0,1,-1,2,-2,1/2,-1/2").amp2d, 20.6, 1));
  CHECK(prints_as(metrics_of(6, 3, kNova63).amp2d, 147, 0));
  CHECK(prints_as(metrics_of(4, 3, "standard").amp2d, 10.8, 1));
  CHECK(prints_as(metrics_of(4, 3, kNova43).amp2d, 11.2, 1));
  CHECK(prints_as(metrics_of(6, 3, "standard").amp2d, 965, 0));
  CHECK(prints_as(metrics_of(8, 3, kNova83).amp2d, 1669, 0));
}

TEST_CASE("amp2D and kappa(V) do not depend on the scaling, entries do") {
  const TileSize tile{6, 3};
  const auto pts = finite_points_for_tile(tile, parse_point_list(kNova63));
  const Metrics g = compute_metrics(build_transform(tile, pts, Scaling::DenominatorsInG));
  for (const Scaling s : {Scaling::DenominatorsInA, Scaling::DenominatorsInB, Scaling::Balanced, Scaling::BalancedUnits}) {
    const Metrics other = compute_metrics(build_transform(tile, pts, s));
    CHECK(other.amp2d == Approx(g.amp2d).epsilon(1e-12));
    CHECK(other.kappa2_V == g.kappa2_V);
  }
  // Balanced brings each row of G to a 2-norm within sqrt(2) of 1, so no entry exceeds sqrt(2) (NOVA's F(6,3): 1.08).
  const Metrics balanced = compute_metrics(build_transform(tile, pts, Scaling::Balanced));
  CHECK(balanced.max_abs_G <= std::sqrt(2.0));
  CHECK(balanced.max_abs_G != g.max_abs_G);
}

TEST_CASE("kappa2 stays accurate far beyond 1e12 because the inverses are exact") {
  // F(16,3) standard points: kappa2(V) is about 9.4e14, where a double SVD's sigma_min is noise.
  // Reference: the SVD of the same exact matrices in 50-digit binary floating point.
  using HighPrecision = boost::multiprecision::cpp_bin_float_50;
  const TileSize tile{16, 3};
  const Transform t = build_transform(tile, standard_points(tile), Scaling::DenominatorsInG);
  const Metrics mt = compute_metrics(t);
  const auto reference_kappa2 = [](const RationalMatrix& exact) {
    Eigen::Matrix<HighPrecision, Eigen::Dynamic, Eigen::Dynamic> m(exact.rows(), exact.cols());
    for (std::size_t i = 0; i < exact.rows(); ++i)
      for (std::size_t j = 0; j < exact.cols(); ++j)
        m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = exact(i, j).convert_to<HighPrecision>();
    const auto sv = Eigen::JacobiSVD<decltype(m)>(m).singularValues();
    return (sv(0) / sv(sv.size() - 1)).convert_to<double>();
  };
  CHECK(mt.kappa2_V > 1e14);
  CHECK(mt.kappa2_V == Approx(reference_kappa2(vandermonde(t.finite_points))).epsilon(1e-9));
  CHECK(mt.kappa2_BT == Approx(reference_kappa2(t.BT)).epsilon(1e-9));
}

TEST_CASE("predicted error is 0.7 u amp2D") {
  const Metrics mt = metrics_of(6, 3, kNova63);
  CHECK(mt.predicted_error_fp16 == Approx(0.7 * std::ldexp(1.0, -11) * mt.amp2d));
  CHECK(mt.predicted_error_bf16 == Approx(0.7 * std::ldexp(1.0, -8) * mt.amp2d));
}
