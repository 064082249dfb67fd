// The discovery pipeline of docs/design.md §4 (paper section 3, appendices B and C):
// symmetric search -> Evolution Strategy in R^{n-1} -> snap-to-rational -> neighbourhood search.
// Everything here runs in double precision; the caller builds, verifies and measures the chosen
// points exactly (make_config).
#pragma once

#include "nova/discover/evolution.hpp"
#include "nova/discover/objective.hpp"
#include "nova/discover/snap.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace nova::discover {

// Tiles the search accepts: beyond them the ES dimension and the conditioning make no sense.
inline constexpr int kMaxSearchOutputTile = 16;
inline constexpr int kMinSearchFilterTaps = 2;
// Limits on the settings, far above anything useful, that keep memory and time bounded.
inline constexpr int kMaxPopulation = 100000;
inline constexpr int kMaxGenerations = 100000;
inline constexpr int kMaxRestarts = 1000;
inline constexpr unsigned kMaxSearchThreads = 256;  // far past any useful count; each thread reserves a stack
inline constexpr std::size_t kMaxNeighbourhoodBudget = 10000000;

// Paper B.7 / Table 14: weight of the representability penalty of the dtype-aware ES.
inline constexpr double kRepresentabilityWeight = 0.1;
// Combinations the neighbourhood search scores per stage. Paper B.3 caps its enumeration at 10^5;
// scoring each set once (not once per ordering of its points) 3 x 10^4 finds the same sets for
// every tile measured, in a third of the time (docs/discovery.md).
inline constexpr std::size_t kNeighbourhoodBudget = 30000;

struct SearchOptions {
  exact::TileSize tile;
  Objective objective = Objective::Kappa;
  exact::Scaling scaling = exact::Scaling::DenominatorsInG;  // see default_scaling()
  LatticeBounds lattice;                       // d_max, numerator bound and dtype constraint
  EvolutionSettings evolution;
  std::uint64_t seed = 1;
  bool symmetric_only = false;
  bool es_only = false;
  bool tensor_core = false;  // fp16/bf16: only sets whose B^T (x) B^T is one table of the type (one_kronecker_table)
  unsigned threads = 1;
  std::size_t neighbourhood_budget = kNeighbourhoodBudget;  // combinations scored per stage
  // Called with one status line per ES generation and one when a stage finishes; may be empty.
  std::function<void(const std::string& line, bool stage_finished)> progress;
};

// The paper's convention for kappa; balanced row scaling (docs/design.md §6) for fp16/bf16.
exact::Scaling default_scaling(Objective objective);

// Throws InputError naming the first option that is out of range.
void validate_search_options(const SearchOptions& options);

struct StageResult {
  std::string stage;                 // "symmetric" or "es"
  std::vector<double> continuous;    // the ES optimum, as n-1 points
  std::vector<exact::Rational> points;      // after snapping and the neighbourhood search (n-1 points)
  double score = 0;                  // ObjectiveFunction::score of `points`
  std::size_t evaluations = 0;       // fitness and score evaluations of the stage
};

struct SearchResult {
  std::vector<exact::Rational> points;  // the best of the stages
  double score = 0;
  std::string stage;
  std::vector<StageResult> stages;
};

SearchResult run_search(const SearchOptions& options);

// Provenance for the JSON: command, seed, objective, dtype, tool version and search settings; for
// fp16/bf16 also the storage range and the full-scale transformed values it had to contain.
nlohmann::json search_provenance(const SearchOptions& options, const SearchResult& result, const std::string& command);

// Label of the point set for transform_name: the objective, plus "_dyadic" (fp16), "_bf16" or
// "_int8" for a representability constraint and "_tc" for the tensor-core one, e.g. "fp16_dyadic_tc".
std::string default_search_label(Objective objective, Dtype dtype, bool tensor_core = false);

}  // namespace nova::discover
