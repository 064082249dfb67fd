// The Evolution Strategy of paper Alg. 1 / Table 13 in R^dims, deterministic for a seed: every
// restart draws from its own random stream derived from (seed, stream, restart), all draws happen
// on the calling thread, and only the fitness evaluations run in parallel.
#pragma once

#include "nova/discover/worker_pool.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace nova::discover {

struct EvolutionSettings {
  int population = 50;
  int generations = 100;
  int restarts = 3;
  double elite_fraction = 0.25;
  double initial_sigma = 0.5;
  double min_sigma = 0.01, max_sigma = 2.0;
  double initial_mean_variance = 0.5;  // mu0 ~ N(0, 0.5 I)
  double success_threshold = 0.2;      // sigma x1.1 above it, x0.9 otherwise
  // Paper B.7: this share of the coordinates of each offspring is moved to the nearest
  // representable value (by `attractor`), when one is given.
  double biased_share = 0.3;
};

struct RestartBest {
  std::vector<double> point;
  double fitness = 0;
};

struct EvolutionProgress {
  int restart = 0, generation = 0;  // 1-based
  double best_fitness = 0;          // best of this restart so far
};

// 64-bit seed of one random stream: a SplitMix64 mix of the user seed, a stream id (one per
// search stage) and the restart number.
std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t stream, std::uint64_t restart);

// Runs settings.restarts independent restarts and returns the best point of each, in order.
// `attractor` maps a coordinate to the nearest representable value (dtype-aware ES).
std::vector<RestartBest> evolution_strategy(std::size_t dims, const std::function<double(const std::vector<double>&)>& fitness,
                                            const EvolutionSettings& settings, std::uint64_t seed, std::uint64_t stream,
                                            const std::function<double(double)>* attractor, WorkerPool& pool,
                                            const std::function<void(const EvolutionProgress&)>& progress);

}  // namespace nova::discover
