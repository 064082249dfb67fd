#include "nova/exact/fast_metrics.hpp"
#include "nova/exact/metrics.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace nova::exact;

namespace {

std::vector<Rational> rationals(std::initializer_list<const char*> texts) {
  std::vector<Rational> out;
  for (const char* t : texts) out.push_back(parse_rational(t));
  return out;
}

}  // namespace

TEST_CASE("the double transform uses the exact Cook-Toom formulas", "[fast_metrics]") {
  const TileSize tile{6, 3};
  const auto points = rationals({"0", "3/5", "-3/5", "1", "-1", "7/6", "-7/6"});
  for (Scaling scaling : {Scaling::DenominatorsInG, Scaling::DenominatorsInA, Scaling::DenominatorsInB, Scaling::Balanced}) {
    const Transform exact = build_transform(tile, points, scaling);
    const FastTransform fast = build_transform_fast(tile, to_doubles(points), scaling);
    auto check = [](const RationalMatrix& e, const Eigen::MatrixXd& f) {
      REQUIRE(f.rows() == static_cast<Eigen::Index>(e.rows()));
      REQUIRE(f.cols() == static_cast<Eigen::Index>(e.cols()));
      for (std::size_t i = 0; i < e.rows(); ++i)
        for (std::size_t j = 0; j < e.cols(); ++j)
          CHECK(f(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) ==
                Approx(to_double(e(i, j))).epsilon(1e-13).margin(1e-13));
    };
    check(exact.AT, fast.AT);
    check(exact.G, fast.G);
    check(exact.BT, fast.BT);
  }
}

TEST_CASE("fast kappa2(V) and amp2D agree with the exact metrics", "[fast_metrics]") {
  for (const auto& [tile, points] : std::vector<std::pair<TileSize, std::vector<Rational>>>{
           {{4, 3}, rationals({"0", "5/6", "-5/6", "7/6", "-7/6"})},
           {{6, 3}, rationals({"0", "1", "-1", "2", "-2", "3", "-3"})},
           {{8, 3}, rationals({"0", "1", "-1", "2", "-2", "3", "-3", "4", "-4"})},
           {{4, 5}, rationals({"0", "1/3", "-2/7", "1", "-1", "9/4", "-5/2"})},
       }) {
    const Metrics exact = compute_metrics(build_transform(tile, points, Scaling::Balanced));
    const FastTransform fast = build_transform_fast(tile, to_doubles(points), Scaling::Balanced);
    CHECK(kappa2_vandermonde(to_doubles(points)) == Approx(exact.kappa2_V).epsilon(1e-10));
    CHECK(amplification_2d(fast.AT, fast.G, fast.BT) == Approx(exact.amp2d).epsilon(1e-10));
  }
  // Paper Table 1 / Table 2 values.
  CHECK(kappa2_vandermonde({0, 1, -1, 2, -2}) == Approx(42.47).epsilon(1e-3));
  CHECK(kappa2_vandermonde({0, 0.6, -0.6, 1, -1, 7.0 / 6, -7.0 / 6}) == Approx(76.64).epsilon(1e-3));
}

TEST_CASE("coincident points have infinite kappa", "[fast_metrics]") {
  CHECK(std::isinf(kappa2_vandermonde({0, 1, 1, 2, -2})));
}

TEST_CASE("the tensor error is rounding-sized for valid points and grows as points merge", "[fast_metrics]") {
  const TileSize tile{4, 3};
  const double apart = tensor_error(build_transform_fast(tile, {0, 0.5, -0.5, 1, -1}, Scaling::DenominatorsInG));
  const double close = tensor_error(build_transform_fast(tile, {0, 0.5, 0.5 + 1e-9, 1, -1}, Scaling::DenominatorsInG));
  CHECK(apart < 1e-13);
  CHECK(close > 1e3 * apart);
}

TEST_CASE("transformed range bounds the full-scale transformed values", "[fast_metrics]") {
  // Standard F(4,3) with denominators in G: B^T rows have L1 norms 4..10, G rows 1/6..1.
  const FastTransform t = build_transform_fast({4, 3}, {0, 1, -1, 2, -2}, Scaling::DenominatorsInG);
  const TransformedRange range = transformed_range(t);
  const Eigen::VectorXd b = t.BT.cwiseAbs().rowwise().sum(), g = t.G.cwiseAbs().rowwise().sum();
  CHECK(range.largest_full_scale == Approx(std::pow(std::max(b.maxCoeff(), g.maxCoeff()), 2)));
  CHECK(range.smallest_full_scale == Approx(std::pow(std::min(b.minCoeff(), g.minCoeff()), 2)));
}
