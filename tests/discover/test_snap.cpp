#include "nova/exact/fast_metrics.hpp"
#include "nova/discover/snap.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace nova::discover;
using namespace nova::exact;

namespace {

Rational q(const char* text) { return parse_rational(text); }

// {0} U {+-m}: the F(4,3) symmetric sets.
double symmetric_kappa(const std::vector<double>& magnitudes) {
  std::vector<double> points{0};
  for (double m : magnitudes) points.push_back(m), points.push_back(-m);
  return kappa2_vandermonde(points);
}

}  // namespace

TEST_CASE("snap-to-rational returns the nearest simple rational (paper eq. 15)", "[snap]") {
  const RationalLattice lattice({10, 5, Dtype::None});
  CHECK(lattice.snap(0.83) == q("5/6"));
  CHECK(lattice.snap(0.855) == q("6/7"));
  CHECK(lattice.snap(-1.19) == q("-6/5"));  // 13/11 would be nearer, but needs d = 11 > d_max
  CHECK(lattice.snap(0.0) == 0);
  CHECK(lattice.snap(100.0) == 5);  // |a| <= 5b
  CHECK(lattice.snap(-7.2) == -5);
  CHECK(lattice.distance_to_lattice(0.5) == 0);
  CHECK(lattice.distance_to_lattice(0.83) == Approx(1.0 / 300));
}

TEST_CASE("snap ties go to the smaller denominator, then to the smaller value", "[snap]") {
  CHECK(RationalLattice({1, 5, Dtype::None}).snap(0.5) == 0);
  CHECK(RationalLattice({2, 5, Dtype::None}).snap(0.75) == 1);  // 1 and 1/2 are equally near
  CHECK(RationalLattice({6, 5, Dtype::None}).snap(0.84) == q("5/6"));
  CHECK(RationalLattice({6, 5, Dtype::None}).snap(1.0 / 6) == q("1/6"));
}

TEST_CASE("snapping under a dtype keeps to representable values (paper Table 15)", "[snap]") {
  CHECK(RationalLattice({10, 5, Dtype::Fp16}).snap(0.83) == q("7/8"));
  CHECK(RationalLattice({16, 5, Dtype::Fp16}).snap(0.83) == q("13/16"));
  CHECK(RationalLattice({10, 5, Dtype::Bf16}).snap(1.3) == q("5/4"));
  CHECK(RationalLattice({10, 5, Dtype::Int8}).snap(0.83) == 1);
  CHECK(RationalLattice({10, 1000, Dtype::Int8}).snap(200.0) == 127);
  CHECK(RationalLattice({10, 1000, Dtype::Int8}).snap(-200.0) == -128);
  CHECK(RationalLattice({1000, 1000, Dtype::Fp16}).snap(1e6) == 1000);  // |a| <= 1000 b with b = 1
  CHECK(RationalLattice({1000, 1000, Dtype::Bf16}).snap(1e6) == 256);   // Table 15: |n| <= 256
}

TEST_CASE("representability follows Table 15", "[snap]") {
  CHECK(is_representable(q("3/4"), Dtype::Fp16));
  CHECK(is_representable(q("1/1024"), Dtype::Fp16));
  CHECK_FALSE(is_representable(q("1/2048"), Dtype::Fp16));
  CHECK_FALSE(is_representable(q("2049"), Dtype::Fp16));
  CHECK_FALSE(is_representable(q("5/6"), Dtype::Fp16));
  CHECK(is_representable(q("-255/128"), Dtype::Bf16));
  CHECK_FALSE(is_representable(q("1/256"), Dtype::Bf16));
  CHECK_FALSE(is_representable(q("257"), Dtype::Bf16));
  CHECK(is_representable(q("-128"), Dtype::Int8));
  CHECK(is_representable(q("127"), Dtype::Int8));
  CHECK_FALSE(is_representable(q("128"), Dtype::Int8));
  CHECK_FALSE(is_representable(q("1/2"), Dtype::Int8));
  CHECK(is_representable(q("5/6"), Dtype::None));
  CHECK(parse_dtype("bf16") == Dtype::Bf16);
  CHECK(dtype_name(Dtype::Int8) == "int8");
  CHECK_THROWS_AS(parse_dtype("fp8"), InputError);
}

TEST_CASE("the lattice lists nearest values, membership and its size", "[snap]") {
  const RationalLattice lattice({10, 5, Dtype::None});
  CHECK(lattice.nearest(0.85, 3, false) == std::vector<Rational>{q("6/7"), q("5/6"), q("7/8")});
  CHECK(lattice.nearest(0.0, 2, true) == std::vector<Rational>{q("1/10"), q("1/9")});
  CHECK(lattice.nearest(0.0, 3, false) == std::vector<Rational>{q("0"), q("-1/10"), q("1/10")});
  CHECK(lattice.contains(q("5/6")));
  CHECK(lattice.contains(q("-5")));
  CHECK_FALSE(lattice.contains(q("11/12")));
  CHECK_FALSE(lattice.contains(q("6")));
  CHECK(lattice.count_positive(1000) == 160);  // sum over b <= 10 of 5 phi(b)
  CHECK(lattice.count_positive(7) == 7);
  CHECK_THROWS_AS(RationalLattice({0, 5, Dtype::None}), InputError);
  CHECK_THROWS_AS(RationalLattice({10, 0, Dtype::None}), InputError);
  CHECK_THROWS_AS(RationalLattice({1001, 5, Dtype::None}), InputError);
}

TEST_CASE("neighbourhood search finds the best symmetric F(4,3) set near the ES optimum", "[snap]") {
  WorkerPool pool(2);
  const std::vector<double> es_optimum{0.855, 1.183};  // continuous kappa optimum of {0, +-a, +-b}
  const auto found = neighbourhood_search(es_optimum, RationalLattice({10, 5, Dtype::None}), true, 30000,
                                          symmetric_kappa, pool);
  CHECK(found.coordinates == std::vector<Rational>{q("7/8"), q("6/5")});
  CHECK(found.score == Approx(14.5341).epsilon(1e-5));
  // The paper's ablation (d_max = 6) finds its published set.
  const auto paper = neighbourhood_search(es_optimum, RationalLattice({6, 5, Dtype::None}), true, 30000,
                                          symmetric_kappa, pool);
  CHECK(paper.coordinates == std::vector<Rational>{q("5/6"), q("7/6")});
  CHECK(paper.score == Approx(14.5456).epsilon(1e-5));
}

TEST_CASE("with two coordinates the neighbourhood is exhaustive: it matches enumerating every pair (paper Alg. 4)",
          "[snap]") {
  const RationalLattice lattice({10, 5, Dtype::None});
  std::vector<double> positive;
  for (const auto& v : lattice.nearest(2.5, 1000, true)) positive.push_back(to_double(v));
  double best = INFINITY;
  for (std::size_t i = 0; i < positive.size(); ++i)
    for (std::size_t j = i + 1; j < positive.size(); ++j) best = std::min(best, symmetric_kappa({positive[i], positive[j]}));
  WorkerPool pool(1);
  CHECK(neighbourhood_search({0.855, 1.183}, lattice, true, 30000, symmetric_kappa, pool).score ==
        Approx(best).epsilon(1e-12));
}

TEST_CASE("neighbourhood search descends when the budget is too small to enumerate", "[snap]") {
  const RationalLattice lattice({10, 5, Dtype::None});
  // Five coordinates and budget 30: not even 2^5 combinations fit, so single-coordinate moves.
  const std::vector<double> centre{-1.19, -0.84, 0.02, 0.86, 1.17};
  WorkerPool one(1), four(4);
  const auto a = neighbourhood_search(centre, lattice, false, 30, kappa2_vandermonde, one);
  const auto b = neighbourhood_search(centre, lattice, false, 30, kappa2_vandermonde, four);
  REQUIRE(a.coordinates.size() == 5);
  CHECK(a.coordinates == b.coordinates);
  CHECK(a.evaluated <= 30);
  std::vector<double> snapped;
  for (double x : centre) snapped.push_back(to_double(lattice.snap(x)));
  CHECK(a.score <= kappa2_vandermonde(snapped));
}

TEST_CASE("neighbourhood search reports no set when every combination repeats a value", "[snap]") {
  WorkerPool pool(1);
  const auto found = neighbourhood_search({0.5, 0.6}, RationalLattice({1, 1, Dtype::None}), true, 100,
                                          symmetric_kappa, pool);
  CHECK(found.coordinates.empty());
  CHECK(std::isinf(found.score));
}
