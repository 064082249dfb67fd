#include "nova/exact/fast_metrics.hpp"
#include "nova/discover/evolution.hpp"
#include "nova/discover/objective.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace nova::discover;
using namespace nova::exact;

TEST_CASE("objective names parse and print", "[objective]") {
  CHECK(parse_objective("kappa") == Objective::Kappa);
  CHECK(parse_objective("fp16") == Objective::Fp16);
  CHECK(objective_name(Objective::Bf16) == "bf16");
  CHECK_THROWS_WITH(parse_objective("accuracy"), Catch::Contains("unknown objective 'accuracy'"));
}

TEST_CASE("the kappa objective scores kappa2(V) and its fitness is eq. 5 with lambda2 = 1", "[objective]") {
  const ObjectiveFunction kappa({4, 3}, Objective::Kappa, Scaling::DenominatorsInG);
  const std::vector<double> p{0, 5.0 / 6, -5.0 / 6, 7.0 / 6, -7.0 / 6};
  CHECK(kappa.score(p) == Approx(14.5456).epsilon(1e-5));
  const double magnitude = (2 * 25.0 / 36 + 2 * 49.0 / 36) / 5;
  CHECK(kappa.fitness(p) == Approx(0.001 * magnitude + std::log10(kappa.score(p) + 1)).epsilon(1e-12));
  CHECK_FALSE(kappa.storage_range().has_value());
  CHECK(std::isinf(kappa.score({0, 1, 1, 2, -2})));
  CHECK(std::isinf(kappa.fitness({0, 1, 1, 2, -2})));
}

TEST_CASE("the fp16 objective scores amp2D and rejects sets that leave the fp16 range", "[objective]") {
  const ObjectiveFunction fp16({6, 3}, Objective::Fp16, Scaling::Balanced);
  const std::vector<double> nnpack{0, 1, -1, 2, -2, 0.5, -0.5};
  CHECK(fp16.score(nnpack) == Approx(20.6319).epsilon(1e-5));
  CHECK(fp16.fitness(nnpack) == Approx(std::log10(20.6319)).epsilon(1e-5));
  // Large points with denominators in G: B^T rows sum to ~1e8, far beyond 65504.
  const std::vector<double> wide{0, 100, -100, 200, -200, 300, -300};
  const ObjectiveFunction unbalanced({6, 3}, Objective::Fp16, Scaling::DenominatorsInG);
  REQUIRE(transformed_range(build_transform_fast({6, 3}, wide, Scaling::DenominatorsInG)).largest_full_scale > kFp16Range.max_finite);
  CHECK(std::isinf(unbalanced.score(wide)));
  CHECK(std::isfinite(unbalanced.fitness(wide)));  // a finite penalty steers the ES back
  CHECK(unbalanced.fitness(wide) > std::log10(unbalanced.score(nnpack)) + 1);
  // bf16 has float's exponent range: the same set fits.
  CHECK(std::isfinite(ObjectiveFunction({6, 3}, Objective::Bf16, Scaling::DenominatorsInG).score(wide)));
}

TEST_CASE("with the paper's eq. 5 weights the ES shrinks the points and kappa explodes", "[objective]") {
  // Why the kappa fitness uses lambda2 = 1: with lambda2 = 0.0001 the magnitude term (lambda1 =
  // 0.001) dominates and the optimum moves towards 0, far from the kappa optimum of 14.5.
  const TileSize tile{4, 3};
  auto eq5 = [&](const std::vector<double>& p) {
    double magnitude = 0;
    for (double x : p) magnitude += x * x;
    const double value = tensor_error(build_transform_fast(tile, p, Scaling::DenominatorsInG)) +
                         0.001 * magnitude / static_cast<double>(p.size()) + 0.0001 * std::log10(kappa2_vandermonde(p) + 1);
    return std::isfinite(value) ? value : INFINITY;
  };
  WorkerPool pool(2);
  for (std::uint64_t seed : {1, 2}) {
    const auto bests = evolution_strategy(4 + 3 - 2, eq5, EvolutionSettings{}, seed, 2, nullptr, pool,
                                          [](const EvolutionProgress&) {});
    for (const auto& b : bests) {
      double largest = 0;
      for (double x : b.point) largest = std::max(largest, std::abs(x));
      CHECK(largest < 0.7);
      CHECK(kappa2_vandermonde(b.point) > 100);
    }
  }
}

TEST_CASE("the tensor-core constraint rejects sets whose B^T (x) B^T is not one table of the type", "[objective]") {
  const std::vector<double> tc{0, 0.5, -0.5, 1.5, -1.5}, dyadic{0, 0.625, -0.625, 1.5, -1.5}, asymmetric{0, 0.5, -0.625, 1.5, -1.5};
  const ObjectiveFunction fp16({4, 3}, Objective::Fp16, Scaling::Balanced), fp16_tc({4, 3}, Objective::Fp16, Scaling::Balanced, true);
  CHECK(fp16_tc.tensor_core());
  CHECK(fp16_tc.score(tc) == fp16.score(tc));
  CHECK(fp16_tc.score(tc) == Approx(5.98869).epsilon(1e-5));
  CHECK(std::isfinite(fp16.score(dyadic)));
  CHECK(std::isinf(fp16_tc.score(dyadic)));                     // 25/64 x 9/4 ...: products of 16 significant bits
  CHECK(fp16_tc.fitness(dyadic) == fp16.fitness(dyadic));        // the ES's fitness stays smooth
  // 5/8 x 1/2 ... has 11 significant bits at most: one fp16 table, but two of bf16's 8.
  const FastTransform t = build_transform_fast({4, 3}, asymmetric, Scaling::Balanced);
  CHECK(one_kronecker_table(t.BT, Objective::Fp16));
  CHECK_FALSE(one_kronecker_table(t.BT, Objective::Bf16));
  CHECK(std::isinf(ObjectiveFunction({4, 3}, Objective::Bf16, Scaling::Balanced, true).score(asymmetric)));
  CHECK(std::isfinite(ObjectiveFunction({4, 3}, Objective::Bf16, Scaling::Balanced, true).score(tc)));
  CHECK_THROWS_WITH(ObjectiveFunction({4, 3}, Objective::Kappa, Scaling::Balanced, true), Catch::Contains(kTensorCoreNeedsType));
  CHECK(fp16_tc.description().find("B^T (x) B^T one fp16 table") != std::string::npos);
}
