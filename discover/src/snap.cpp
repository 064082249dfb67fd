#include "nova/discover/snap.hpp"
#include "nova/exact/enum_names.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <tuple>

namespace nova::discover {

using namespace exact;  // the search works in the exact core's vocabulary

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

bool is_power_of_two(long long x) { return x > 0 && (x & (x - 1)) == 0; }

// Table 15 as (largest power-of-two denominator, largest |numerator|).
struct DyadicLimits {
  long long denominator, numerator;
};
DyadicLimits dyadic_limits(Dtype dtype) { return dtype == Dtype::Fp16 ? DyadicLimits{1024, 2048} : DyadicLimits{128, 256}; }

// Per-coordinate candidate values for the neighbourhood search, as doubles for scoring.
struct Candidates {
  std::vector<std::vector<Rational>> exact;
  std::vector<std::vector<double>> approx;
};

Candidates nearest_per_coordinate(const std::vector<double>& centre, const RationalLattice& lattice, bool positive_only,
                                  std::size_t per_coordinate) {
  Candidates c;
  for (double x : centre) {
    c.exact.push_back(lattice.nearest(x, per_coordinate, positive_only));
    std::vector<double> approx;
    for (const auto& v : c.exact.back()) approx.push_back(to_double(v));
    c.approx.push_back(std::move(approx));
  }
  return c;
}

bool has_repeats(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return std::adjacent_find(values.begin(), values.end()) != values.end();
}

// Lowest finite score, earliest index on ties; npos when none is finite.
std::size_t best_index(const std::vector<double>& scores) {
  std::size_t best = std::string::npos;
  for (std::size_t i = 0; i < scores.size(); ++i)
    if (std::isfinite(scores[i]) && (best == std::string::npos || scores[i] < scores[best])) best = i;
  return best;
}

// Every coordinate takes the nearest candidate not already taken by an earlier coordinate.
std::vector<std::size_t> distinct_start(const Candidates& c) {
  std::vector<std::size_t> choice(c.approx.size(), 0);
  std::vector<double> taken;
  for (std::size_t i = 0; i < choice.size(); ++i) {
    while (choice[i] + 1 < c.approx[i].size() &&
           std::find(taken.begin(), taken.end(), c.approx[i][choice[i]]) != taken.end())
      ++choice[i];
    taken.push_back(c.approx[i][choice[i]]);
  }
  return choice;
}

NeighbourhoodResult result_from(const Candidates& c, const std::vector<std::size_t>& choice, double score,
                                std::size_t evaluated) {
  NeighbourhoodResult r{{}, score, evaluated};
  if (!std::isfinite(score)) return r;
  for (std::size_t i = 0; i < choice.size(); ++i) r.coordinates.push_back(c.exact[i][choice[i]]);
  return r;
}

// Every combination of the candidates whose values increase with the coordinate: scores do not
// depend on the order of the points and the centre is sorted, so this scores each set once.
NeighbourhoodResult search_all_combinations(const Candidates& c,
                                            const std::function<double(const std::vector<double>&)>& score,
                                            WorkerPool& pool) {
  std::size_t total = 1;
  for (const auto& list : c.approx) total *= list.size();
  auto decode = [&](std::size_t index) {
    std::vector<std::size_t> choice(c.approx.size());
    for (std::size_t i = 0; i < choice.size(); ++i) {
      choice[i] = index % c.approx[i].size();
      index /= c.approx[i].size();
    }
    return choice;
  };
  std::vector<double> scores(total, kInfinity);
  std::vector<unsigned char> scored(total, 0);
  pool.for_each_index(total, [&](std::size_t index) {
    const auto choice = decode(index);
    std::vector<double> values(choice.size());
    for (std::size_t i = 0; i < choice.size(); ++i) values[i] = c.approx[i][choice[i]];
    if (std::adjacent_find(values.begin(), values.end(), std::greater_equal<>()) != values.end()) return;
    scores[index] = score(values);
    scored[index] = 1;
  });
  const auto evaluated = static_cast<std::size_t>(std::count(scored.begin(), scored.end(), 1));
  const std::size_t best = best_index(scores);
  if (best == std::string::npos) return {{}, kInfinity, evaluated};
  return result_from(c, decode(best), scores[best], evaluated);
}

// Too many coordinates for every combination: steepest descent over single-coordinate moves,
// from the nearest distinct values, until no move improves or the budget is spent.
NeighbourhoodResult search_by_descent(const Candidates& c, std::size_t budget,
                                      const std::function<double(const std::vector<double>&)>& score,
                                      WorkerPool& pool) {
  std::vector<std::size_t> choice = distinct_start(c);
  auto values_of = [&](const std::vector<std::size_t>& ch) {
    std::vector<double> values(ch.size());
    for (std::size_t i = 0; i < ch.size(); ++i) values[i] = c.approx[i][ch[i]];
    return values;
  };
  double current = has_repeats(values_of(choice)) ? kInfinity : score(values_of(choice));
  std::size_t evaluated = 1;
  std::vector<std::pair<std::size_t, std::size_t>> moves;  // (coordinate, candidate)
  for (std::size_t i = 0; i < c.approx.size(); ++i)
    for (std::size_t k = 0; k < c.approx[i].size(); ++k) moves.emplace_back(i, k);
  while (evaluated + moves.size() <= budget) {
    std::vector<double> scores(moves.size());
    pool.for_each_index(moves.size(), [&](std::size_t m) {
      auto moved = choice;
      moved[moves[m].first] = moves[m].second;
      const auto values = values_of(moved);
      scores[m] = moved == choice || has_repeats(values) ? kInfinity : score(values);
    });
    evaluated += moves.size();
    const std::size_t best = best_index(scores);
    if (best == std::string::npos || !(scores[best] < current)) break;
    choice[moves[best].first] = moves[best].second;
    current = scores[best];
  }
  return result_from(c, choice, current, evaluated);
}

}  // namespace

namespace {
constexpr EnumName<Dtype> kDtypeNames[] = {
    {Dtype::None, "none"}, {Dtype::Fp16, "fp16"}, {Dtype::Bf16, "bf16"}, {Dtype::Int8, "int8"}};
}  // namespace

Dtype parse_dtype(std::string_view text) { return parse_enum<Dtype>(kDtypeNames, text, "dtype"); }

std::string_view dtype_name(Dtype dtype) { return enum_name<Dtype>(kDtypeNames, dtype); }

bool is_representable(const Rational& value, Dtype dtype) {
  using boost::multiprecision::abs;
  const auto num = numerator(value), den = denominator(value);
  switch (dtype) {
    case Dtype::None: return true;
    case Dtype::Int8: return den == 1 && num >= -128 && num <= 127;
    case Dtype::Fp16:
    case Dtype::Bf16: {
      const DyadicLimits limits = dyadic_limits(dtype);
      return den <= limits.denominator && is_power_of_two(den.convert_to<long long>()) && abs(num) <= limits.numerator;
    }
  }
  return false;
}

RationalLattice::RationalLattice(LatticeBounds bounds) : bounds_(bounds) {
  if (bounds.max_denominator < 1 || bounds.max_denominator > kMaxDenominatorLimit)
    throw InputError("d_max (--dmax) must be between 1 and " + std::to_string(kMaxDenominatorLimit) + ", got " +
                     std::to_string(bounds.max_denominator));
  if (bounds.numerator_bound < 1 || bounds.numerator_bound > kNumeratorBoundLimit)
    throw InputError("the numerator bound (--numerator-bound) must be between 1 and " + std::to_string(kNumeratorBoundLimit) + ", got " +
                     std::to_string(bounds.numerator_bound));
}

RationalLattice::NumeratorRange RationalLattice::numerators(int denominator) const {
  const long long b = denominator, bound = static_cast<long long>(bounds_.numerator_bound) * b;
  NumeratorRange range{-bound, bound};
  switch (bounds_.dtype) {
    case Dtype::None: break;
    case Dtype::Int8:
      if (b != 1) return {};
      range = {std::max(range.lowest, -128LL), std::min(range.highest, 127LL)};
      break;
    case Dtype::Fp16:
    case Dtype::Bf16: {
      const DyadicLimits limits = dyadic_limits(bounds_.dtype);
      if (!is_power_of_two(b) || b > limits.denominator) return {};
      range = {std::max(range.lowest, -limits.numerator), std::min(range.highest, limits.numerator)};
      break;
    }
  }
  return range;
}

bool RationalLattice::contains(const Rational& value) const {
  const auto b = denominator(value);
  if (b > bounds_.max_denominator) return false;
  const NumeratorRange range = numerators(b.convert_to<int>());
  const auto a = numerator(value);
  return a >= range.lowest && a <= range.highest;
}

Rational RationalLattice::snap(double x) const {
  long long best_a = 0, best_b = 1;
  double best_distance = kInfinity;
  for (int b = 1; b <= bounds_.max_denominator; ++b) {
    const NumeratorRange range = numerators(b);
    if (range.lowest > range.highest) continue;
    const auto below = static_cast<long long>(std::floor(std::clamp(x * b, double(range.lowest), double(range.highest))));
    for (long long a : {below, below + 1}) {
      a = std::clamp(a, range.lowest, range.highest);
      const double distance = std::abs(x - static_cast<double>(a) / b);
      if (distance < best_distance) best_a = a, best_b = b, best_distance = distance;
    }
  }
  return Rational(best_a) / best_b;
}

double RationalLattice::distance_to_lattice(double x) const { return std::abs(x - to_double(snap(x))); }

std::vector<Rational> RationalLattice::nearest(double x, std::size_t count, bool positive_only) const {
  struct Entry {
    double distance;
    long long b, a;
  };
  std::vector<Entry> entries;
  const auto reach = static_cast<long long>(count);
  for (int b = 1; b <= bounds_.max_denominator; ++b) {
    NumeratorRange range = numerators(b);
    if (positive_only) range.lowest = std::max(range.lowest, 1LL);
    if (range.lowest > range.highest) continue;
    const auto below = static_cast<long long>(std::floor(std::clamp(x * b, double(range.lowest), double(range.highest))));
    for (long long a = std::max(range.lowest, below - reach); a <= std::min(range.highest, below + 1 + reach); ++a)
      if (std::gcd(a, static_cast<long long>(b)) == 1)  // each value once, in lowest terms
        entries.push_back({std::abs(x - static_cast<double>(a) / b), b, a});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& l, const Entry& r) {
    return std::tie(l.distance, l.b, l.a) < std::tie(r.distance, r.b, r.a);
  });
  std::vector<Rational> out;
  for (std::size_t i = 0; i < std::min(count, entries.size()); ++i) out.push_back(Rational(entries[i].a) / entries[i].b);
  return out;
}

std::size_t RationalLattice::count_positive(std::size_t enough) const {
  std::size_t found = 0;
  for (int b = 1; b <= bounds_.max_denominator && found < enough; ++b) {
    const NumeratorRange range = numerators(b);
    for (long long a = std::max(range.lowest, 1LL); a <= range.highest && found < enough; ++a)
      if (std::gcd(a, static_cast<long long>(b)) == 1) ++found;
  }
  return found;
}

NeighbourhoodResult neighbourhood_search(const std::vector<double>& centre, const RationalLattice& lattice,
                                         bool positive_only, std::size_t budget,
                                         const std::function<double(const std::vector<double>&)>& score,
                                         WorkerPool& pool) {
  std::vector<double> sorted_centre = centre;
  std::sort(sorted_centre.begin(), sorted_centre.end());
  const double dims = static_cast<double>(centre.size());
  // k per coordinate: the largest k with k^dims <= budget.
  std::size_t k = 1;
  while (std::pow(static_cast<double>(k + 1), dims) <= static_cast<double>(budget)) ++k;
  if (k >= 2)
    return search_all_combinations(nearest_per_coordinate(sorted_centre, lattice, positive_only, k), score, pool);
  constexpr std::size_t kDescentCandidates = 8;
  return search_by_descent(nearest_per_coordinate(sorted_centre, lattice, positive_only, kDescentCandidates), budget,
                           score, pool);
}

}  // namespace nova::discover
