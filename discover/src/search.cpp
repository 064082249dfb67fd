#include "nova/discover/search.hpp"

#include "nova/exact/fast_metrics.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>

namespace nova::discover {

using namespace exact;  // the search works in the exact core's vocabulary

namespace {

// Random stream ids of the two ES stages (see stream_seed).
constexpr std::uint64_t kSymmetricStream = 1;
constexpr std::uint64_t kGeneralStream = 2;

std::string tile_text(TileSize tile) { return "F(" + std::to_string(tile.m) + "," + std::to_string(tile.r) + ")"; }

std::string short_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

// {0 if with_zero} U {+-m : m in magnitudes}.
template <class T>
std::vector<T> symmetric_points(const std::vector<T>& magnitudes, bool with_zero) {
  std::vector<T> points;
  if (with_zero) points.push_back(T(0));
  for (const T& m : magnitudes) {
    points.push_back(m);
    points.push_back(T(-m));
  }
  return points;
}

std::vector<double> absolute(std::vector<double> values) {
  for (double& v : values) v = std::abs(v);
  return values;
}

// The order the configs list points in: by magnitude, the positive one of a pair first.
std::vector<Rational> canonical_order(std::vector<Rational> points) {
  std::sort(points.begin(), points.end(), [](const Rational& a, const Rational& b) {
    const Rational abs_a = a < 0 ? Rational(-a) : a, abs_b = b < 0 ? Rational(-b) : b;
    if (abs_a != abs_b) return abs_a < abs_b;
    return a > b;
  });
  return points;
}

// One stage: ES over `dims` coordinates, mapped to n-1 points by `to_points`, then snapping and
// the neighbourhood search around the best continuous optimum of all restarts.
class Stage {
 public:
  Stage(const SearchOptions& options, const ObjectiveFunction& objective, const RationalLattice& lattice, WorkerPool& pool)
      : options_(options), objective_(objective), lattice_(lattice), pool_(pool) {}

  StageResult run(const std::string& name, std::uint64_t stream, std::size_t dims, bool positive_coordinates,
                  const std::function<std::vector<double>(const std::vector<double>&)>& to_points,
                  const std::function<std::vector<Rational>(const std::vector<Rational>&)>& to_exact_points) {
    const bool dtype_aware = options_.lattice.dtype != Dtype::None;
    std::atomic<std::size_t> fitness_evaluations = 0;
    auto fitness = [&](const std::vector<double>& coordinates) {
      ++fitness_evaluations;
      double value = objective_.fitness(to_points(coordinates));
      if (dtype_aware) {
        double distance = 0;
        for (double c : coordinates) distance += lattice_.distance_to_lattice(c);
        value += kRepresentabilityWeight * distance / static_cast<double>(coordinates.size());
      }
      return value;
    };
    const std::function<double(double)> attractor = [&](double x) { return to_double(lattice_.snap(x)); };
    const EvolutionSettings& es = options_.evolution;
    auto report = [&](const EvolutionProgress& p) {
      if (options_.progress)
        options_.progress(name + ": restart " + std::to_string(p.restart) + "/" + std::to_string(es.restarts) +
                          ", generation " + std::to_string(p.generation) + "/" + std::to_string(es.generations) +
                          ", best fitness " + short_number(p.best_fitness),
                          false);
    };
    const auto restarts = evolution_strategy(dims, fitness, es, options_.seed, stream, dtype_aware ? &attractor : nullptr,
                                             pool_, report);
    const auto best = std::min_element(restarts.begin(), restarts.end(),
                                       [](const RestartBest& a, const RestartBest& b) { return a.fitness < b.fitness; });
    const std::vector<double> centre = positive_coordinates ? absolute(best->point) : best->point;

    auto score = [&](const std::vector<double>& coordinates) { return objective_.score(to_points(coordinates)); };
    const NeighbourhoodResult found =
        neighbourhood_search(centre, lattice_, positive_coordinates, options_.neighbourhood_budget, score, pool_);

    StageResult result{name, to_points(centre), {}, found.score, fitness_evaluations + found.evaluated};
    if (!found.coordinates.empty()) result.points = canonical_order(to_exact_points(found.coordinates));
    if (options_.progress)
      options_.progress(name + ": " + (result.points.empty() ? std::string("no valid rational set near the optimum")
                                                              : "score " + short_number(result.score)) +
                            " after " + std::to_string(found.evaluated) + " neighbourhood combinations",
                        true);
    return result;
  }

 private:
  const SearchOptions& options_;
  const ObjectiveFunction& objective_;
  const RationalLattice& lattice_;
  WorkerPool& pool_;
};

}  // namespace

Scaling default_scaling(Objective objective) {
  return objective == Objective::Kappa ? Scaling::DenominatorsInG : Scaling::BalancedUnits;
}

std::string default_search_label(Objective objective, Dtype dtype, bool tensor_core) {
  std::string label(objective_name(objective));
  switch (dtype) {
    case Dtype::None: break;
    case Dtype::Fp16: label += "_dyadic"; break;
    case Dtype::Bf16: label += "_bf16"; break;
    case Dtype::Int8: label += "_int8"; break;
  }
  return tensor_core ? label + "_tc" : label;
}

void validate_search_options(const SearchOptions& o) {
  const TileSize t = o.tile;
  if (t.m < 1 || t.m > kMaxSearchOutputTile)
    throw InputError("the search supports 1 <= m <= " + std::to_string(kMaxSearchOutputTile) + ", got " + tile_text(t));
  if (t.r < kMinSearchFilterTaps || t.r > kMaxFilterTaps)
    throw InputError("the search supports " + std::to_string(kMinSearchFilterTaps) + " <= r <= " +
                     std::to_string(kMaxFilterTaps) + ", got " + tile_text(t));
  if (t.n() - 1 < 2) throw InputError(tile_text(t) + " has a single finite point: there is nothing to search");
  if (o.symmetric_only && o.es_only) throw InputError("--symmetric-only and --es-only exclude each other");
  if (o.tensor_core && o.objective == Objective::Kappa) throw InputError(kTensorCoreNeedsType);
  auto check_range = []<class T>(T value, T lowest, T highest, const std::string& what) {
    if (value < lowest || value > highest)
      throw InputError(what + " must be between " + std::to_string(lowest) + " and " + std::to_string(highest) +
                       ", got " + std::to_string(value));
  };
  const EvolutionSettings& es = o.evolution;
  // At least 4: the elite is a quarter of the population.
  check_range(es.population, 4, kMaxPopulation, "the population (--population)");
  check_range(es.generations, 1, kMaxGenerations, "the number of generations (--generations)");
  check_range(es.restarts, 1, kMaxRestarts, "the number of restarts (--restarts)");
  check_range(o.threads, 1u, kMaxSearchThreads, "the number of threads (--threads)");
  check_range(o.neighbourhood_budget, std::size_t{1}, kMaxNeighbourhoodBudget,
              "the neighbourhood budget (--neighbourhood-budget)");

  const RationalLattice lattice(o.lattice);  // checks d_max and the numerator bound
  const auto pairs = static_cast<std::size_t>((t.n() - 1) / 2);
  if (const std::size_t positive = lattice.count_positive(pairs); positive < pairs)
    throw InputError("the rational lattice (d_max " + std::to_string(o.lattice.max_denominator) + ", numerator bound " +
                     std::to_string(o.lattice.numerator_bound) + ", dtype " + std::string(dtype_name(o.lattice.dtype)) +
                     ") has only " + std::to_string(positive) + " positive value(s), too few for the " +
                     std::to_string(t.n() - 1) + " distinct points of " + tile_text(t) +
                     ": raise --dmax or --numerator-bound");
}

SearchResult run_search(const SearchOptions& options) {
  validate_search_options(options);
  const TileSize tile = options.tile;
  const ObjectiveFunction objective(tile, options.objective, options.scaling, options.tensor_core);
  const RationalLattice lattice(options.lattice);
  WorkerPool pool(options.threads);
  Stage stage(options, objective, lattice, pool);

  const auto finite = static_cast<std::size_t>(tile.n() - 1);
  const bool with_zero = finite % 2 == 1;
  SearchResult result;
  if (!options.es_only)
    result.stages.push_back(stage.run(
        "symmetric search", kSymmetricStream, finite / 2, true,
        [&](const std::vector<double>& m) { return symmetric_points(absolute(m), with_zero); },
        [&](const std::vector<Rational>& m) { return symmetric_points(m, with_zero); }));
  if (!options.symmetric_only)
    result.stages.push_back(stage.run(
        "ES", kGeneralStream, finite, false, [](const std::vector<double>& p) { return p; },
        [](const std::vector<Rational>& p) { return p; }));

  // A later stage must be better by more than rounding: the same set scored from differently
  // ordered doubles differs in the last bits.
  constexpr double kRelativeTie = 1e-9;
  const StageResult* best = nullptr;
  for (const auto& s : result.stages)
    if (!s.points.empty() && (!best || s.score < best->score * (1 - kRelativeTie))) best = &s;
  if (!best)
    throw InputError("no valid rational point set was found near the optimum of " + tile_text(tile) +
                     (options.tensor_core ? " whose B^T (x) B^T is one table of the storage type" : "") +
                     ": raise --dmax or --numerator-bound");
  result.points = best->points;
  result.score = best->score;
  result.stage = best->stage;
  return result;
}

nlohmann::json search_provenance(const SearchOptions& o, const SearchResult& result, const std::string& command) {
  nlohmann::json stages = nlohmann::json::array();
  for (const auto& s : result.stages) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : s.points) points.push_back(to_string(p));
    const nlohmann::json score = s.points.empty() ? nlohmann::json(nullptr) : nlohmann::json(std::stod(short_number(s.score)));
    stages.push_back({{"stage", s.stage}, {"points", points}, {"score", score}});
  }
  const EvolutionSettings& es = o.evolution;
  const ObjectiveFunction objective(o.tile, o.objective, o.scaling, o.tensor_core);
  nlohmann::json provenance = {
      {"tool", std::string("nova-discover ") + NOVA_VERSION},
      {"command", command},
      {"objective", objective_name(o.objective)},
      {"dtype", dtype_name(o.lattice.dtype)},
      {"seed", o.seed},
      {"search",
       {{"pipeline", "symmetric search -> ES in R^(n-1) -> snap-to-rational -> neighbourhood search -> exact verification"},
        {"chosen_stage", result.stage},
        {"stages", stages},
        {"objective_function", objective.description()},
        {"symmetric_only", o.symmetric_only},
        {"es_only", o.es_only},
        {"population", es.population},
        {"generations", es.generations},
        {"restarts", es.restarts},
        {"elite_fraction", es.elite_fraction},
        {"initial_sigma", es.initial_sigma},
        {"sigma_bounds", {es.min_sigma, es.max_sigma}},
        {"dmax", o.lattice.max_denominator},
        {"numerator_bound", o.lattice.numerator_bound},
        {"neighbourhood_budget", o.neighbourhood_budget},
        {"representability_weight", o.lattice.dtype == Dtype::None ? 0.0 : kRepresentabilityWeight}}},
  };
  if (o.tensor_core) provenance["search"]["tensor_core"] = true;  // absent otherwise: the earlier configs stay as they were
  if (const auto range = objective.storage_range()) {
    std::vector<double> points;
    for (const auto& p : result.points) points.push_back(to_double(p));
    const TransformedRange values = transformed_range(build_transform_fast(o.tile, points, o.scaling));
    provenance["storage_range"] = {{"type", objective_name(o.objective)},
                                   {"min_normal", range->min_normal},
                                   {"max_finite", range->max_finite},
                                   {"smallest_full_scale_value", std::stod(short_number(values.smallest_full_scale))},
                                   {"largest_full_scale_value", std::stod(short_number(values.largest_full_scale))}};
  }
  return provenance;
}

}  // namespace nova::discover
