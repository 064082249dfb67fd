#include "nova/discover/baselines.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>

namespace nova::discover {

using namespace exact;  // the search works in the exact core's vocabulary

namespace {

std::string fixed(double x, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

// Known sets by tile; F(6,3) {0, +-1, +-2, +-1/2} is the NNPACK/wincnn set.
struct ClassicSet {
  TileSize tile;
  const char* label;
  const char* description;
  std::vector<int> numerators, denominators;
};
const std::vector<ClassicSet>& classic_sets() {
  static const std::vector<ClassicSet> sets = {
      {{6, 3}, "nnpack", "classic NNPACK/wincnn F(6,3) set", {0, 1, -1, 2, -2, 1, -1}, {1, 1, 1, 1, 1, 2, 2}},
  };
  return sets;
}

Rational nearest_multiple_of_2_to_minus_32(double x) {
  constexpr double kScale = 4294967296.0;  // 2^32
  return Rational(static_cast<long long>(std::llround(x * kScale))) / Rational(4294967296LL);
}

}  // namespace

Baseline chebyshev_baseline(const ObjectiveFunction& objective) {
  const int count = objective.tile().n() - 1;
  std::vector<double> nodes;
  for (int k = 1; k <= count; ++k) nodes.push_back(std::cos((2.0 * k - 1) * std::numbers::pi / (2.0 * count)));
  auto mapped = [&](double a, double b) {
    std::vector<double> p;
    for (double x : nodes) p.push_back(a * x + b);
    return p;
  };
  double best_a = 1, best_b = 0, best_score = std::numeric_limits<double>::infinity();
  // Coarse grid over the paper's ranges, then a grid ten times finer around the best cell.
  auto scan = [&](double a_lo, double a_hi, double b_lo, double b_hi, double step) {
    const int a_steps = static_cast<int>(std::lround((a_hi - a_lo) / step)),
              b_steps = static_cast<int>(std::lround((b_hi - b_lo) / step));
    for (int i = 0; i <= a_steps; ++i)
      for (int j = 0; j <= b_steps; ++j) {
        const double a = a_lo + i * step, b = b_lo + j * step;
        if (a < 0.5 || a > 5.0 || b < -2.0 || b > 2.0) continue;
        if (const double s = objective.score(mapped(a, b)); s < best_score) best_a = a, best_b = b, best_score = s;
      }
  };
  constexpr double kCoarse = 0.05, kFine = 0.005;
  scan(0.5, 5.0, -2.0, 2.0, kCoarse);
  scan(best_a - kCoarse, best_a + kCoarse, best_b - kCoarse, best_b + kCoarse, kFine);

  Baseline baseline{"chebyshev",
                    "Chebyshev nodes x -> " + fixed(best_a, 3) + " x + " + fixed(best_b, 3) +
                        " (best affine map for " + std::string(objective_name(objective.objective())) + ")",
                    {}};
  for (double p : mapped(best_a, best_b)) baseline.points.push_back(nearest_multiple_of_2_to_minus_32(p));
  return baseline;
}

std::optional<Baseline> reciprocal_baseline(const ObjectiveFunction& objective, const RationalLattice& lattice) {
  const int count = objective.tile().n() - 1, pairs = count / 2;
  if (pairs < 2) return std::nullopt;
  auto family = [&](const Rational& c) {
    std::vector<Rational> p;
    if (count % 2) p.emplace_back(0);
    if (pairs % 2) p.emplace_back(1), p.emplace_back(-1);
    Rational power = 1;
    for (int j = 1; j <= pairs / 2; ++j) {
      power *= c;
      for (const Rational& v : {Rational(power), Rational(1 / power)}) p.push_back(v), p.push_back(-v);
    }
    return p;
  };
  // c = a/b > 1 with 1/c = b/a in the lattice too: a <= d_max.
  std::optional<Rational> best_c;
  double best_score = std::numeric_limits<double>::infinity();
  for (int a = 2; a <= lattice.bounds().max_denominator; ++a)
    for (int b = 1; b < a; ++b) {
      const Rational c = Rational(a) / b;
      if (denominator(c) != b) continue;  // each value once, in lowest terms
      const auto points = family(c);
      if (!std::all_of(points.begin(), points.end(), [&](const Rational& p) { return lattice.contains(p); })) continue;
      if (const double s = objective.score(to_doubles(points)); s < best_score) best_c = c, best_score = s;
    }
  if (!best_c) return std::nullopt;
  return Baseline{"reciprocal", "reciprocal pairs {+-c^j, +-1/c^j}, best c in the search lattice = " + to_string(*best_c),
                  family(*best_c)};
}

std::vector<Baseline> make_baselines(const ObjectiveFunction& objective, const RationalLattice& lattice) {
  const TileSize tile = objective.tile();
  std::vector<Baseline> out{{"standard", "standard integers {0, +-1, +-2, ...}", standard_points(tile)}};
  out.push_back(chebyshev_baseline(objective));
  if (auto reciprocal = reciprocal_baseline(objective, lattice)) out.push_back(std::move(*reciprocal));
  for (const auto& set : classic_sets())
    if (set.tile == tile) {
      Baseline b{set.label, set.description, {}};
      for (std::size_t i = 0; i < set.numerators.size(); ++i)
        b.points.push_back(Rational(set.numerators[i]) / set.denominators[i]);
      out.push_back(std::move(b));
    }
  return out;
}

}  // namespace nova::discover
