#include "nova/discover/baselines.hpp"
#include "nova/exact/fast_metrics.hpp"

#include <catch2/catch.hpp>

using namespace nova::discover;
using namespace nova::exact;

namespace {

const RationalLattice kDefaultLattice({10, 5, Dtype::None});

}  // namespace

TEST_CASE("affinely mapped Chebyshev nodes reproduce paper Table 25", "[baselines]") {
  // Table 25 "Cheb Opt": 15.9, 87, 493. The finer affine grid here finds slightly lower values.
  for (const auto& [tile, table25] : std::vector<std::pair<TileSize, double>>{{{4, 3}, 15.9}, {{6, 3}, 87}, {{8, 3}, 493}}) {
    const Baseline b = chebyshev_baseline(ObjectiveFunction(tile, Objective::Kappa, Scaling::DenominatorsInG));
    REQUIRE(b.points.size() == static_cast<std::size_t>(tile.n() - 1));
    const double kappa = kappa2_vandermonde(to_doubles(b.points));
    CHECK(kappa <= table25 * 1.001);
    CHECK(kappa >= table25 * 0.97);
  }
}

TEST_CASE("the reciprocal baseline picks the best c inside the search lattice", "[baselines]") {
  const auto f43 = reciprocal_baseline(ObjectiveFunction({4, 3}, Objective::Kappa, Scaling::DenominatorsInG), kDefaultLattice);
  REQUIRE(f43);
  CHECK(f43->points == std::vector<Rational>{0, Rational(7, 6), Rational(-7, 6), Rational(6, 7), Rational(-6, 7)});
  // F(6,3) adds +-1; F(8,3) uses c and c^2, which must both stay in the lattice.
  const auto f63 = reciprocal_baseline(ObjectiveFunction({6, 3}, Objective::Kappa, Scaling::DenominatorsInG), kDefaultLattice);
  REQUIRE(f63);
  CHECK(f63->points.size() == 7);
  CHECK(f63->points[1] == 1);
  const auto f83 = reciprocal_baseline(ObjectiveFunction({8, 3}, Objective::Kappa, Scaling::DenominatorsInG), kDefaultLattice);
  REQUIRE(f83);
  for (const auto& p : f83->points) CHECK(kDefaultLattice.contains(p));
  // F(2,3) has a single pair: the family has no parameter.
  CHECK_FALSE(reciprocal_baseline(ObjectiveFunction({2, 3}, Objective::Kappa, Scaling::DenominatorsInG), kDefaultLattice));
}

TEST_CASE("baselines: standard first, the classic set only where one exists", "[baselines]") {
  const auto f63 = make_baselines(ObjectiveFunction({6, 3}, Objective::Fp16, Scaling::Balanced), kDefaultLattice);
  REQUIRE(f63.size() == 4);
  CHECK(f63[0].label == "standard");
  CHECK(f63[0].points == standard_points({6, 3}));
  CHECK(f63[1].label == "chebyshev");
  CHECK(f63[2].label == "reciprocal");
  CHECK(f63[3].label == "nnpack");
  CHECK(f63[3].points == std::vector<Rational>{0, 1, -1, 2, -2, Rational(1, 2), Rational(-1, 2)});
  const auto f43 = make_baselines(ObjectiveFunction({4, 3}, Objective::Kappa, Scaling::DenominatorsInG), kDefaultLattice);
  CHECK(f43.size() == 3);
}
