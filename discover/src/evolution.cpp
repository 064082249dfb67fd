#include "nova/discover/evolution.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <random>

namespace nova::discover {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// mt19937_64's output sequence is fixed by the standard; the distributions of <random> are not.
// Drawing uniforms and normals here keeps a seed's results identical across standard libraries.
class RandomStream {
 public:
  explicit RandomStream(std::uint64_t seed) : engine_(seed) {}

  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }  // [0, 1)

  double normal() {  // Box-Muller, one value per call
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace

std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t stream, std::uint64_t restart) {
  return splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ restart);
}

std::vector<RestartBest> evolution_strategy(std::size_t dims, const std::function<double(const std::vector<double>&)>& fitness,
                                            const EvolutionSettings& s, std::uint64_t seed, std::uint64_t stream,
                                            const std::function<double(double)>* attractor, WorkerPool& pool,
                                            const std::function<void(const EvolutionProgress&)>& progress) {
  const auto population = static_cast<std::size_t>(s.population);
  const std::size_t elite = std::max<std::size_t>(1, static_cast<std::size_t>(s.elite_fraction * s.population));
  std::vector<RestartBest> bests;
  for (int restart = 0; restart < s.restarts; ++restart) {
    RandomStream random(stream_seed(seed, stream, static_cast<std::uint64_t>(restart)));
    std::vector<double> mean(dims);
    for (double& m : mean) m = std::sqrt(s.initial_mean_variance) * random.normal();
    double sigma = s.initial_sigma;
    RestartBest best{mean, fitness(mean)};

    // Candidates 0..population-1 are offspring; the last one is the current mean (the parent
    // that offspring must beat to count as a success).
    std::vector<std::vector<double>> batch(population + 1, std::vector<double>(dims));
    std::vector<double> scores(population + 1);
    for (int generation = 1; generation <= s.generations; ++generation) {
      for (std::size_t i = 0; i < population; ++i)
        for (std::size_t d = 0; d < dims; ++d) {
          batch[i][d] = mean[d] + sigma * random.normal();
          if (attractor && random.uniform() < s.biased_share) batch[i][d] = (*attractor)(batch[i][d]);
        }
      batch[population] = mean;
      pool.for_each_index(batch.size(), [&](std::size_t i) { scores[i] = fitness(batch[i]); });

      std::vector<std::size_t> order(population);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
      const auto successes = static_cast<double>(
          std::count_if(scores.begin(), scores.begin() + static_cast<std::ptrdiff_t>(population),
                        [&](double f) { return f < scores[population]; }));
      for (std::size_t i : {order.front(), population})
        if (scores[i] < best.fitness) best = {batch[i], scores[i]};

      std::fill(mean.begin(), mean.end(), 0.0);
      for (std::size_t e = 0; e < elite; ++e)
        for (std::size_t d = 0; d < dims; ++d) mean[d] += batch[order[e]][d] / static_cast<double>(elite);
      sigma *= successes > s.success_threshold * static_cast<double>(population) ? 1.1 : 0.9;
      sigma = std::clamp(sigma, s.min_sigma, s.max_sigma);
      progress({restart + 1, generation, best.fitness});
    }
    bests.push_back(std::move(best));
  }
  return bests;
}

}  // namespace nova::discover
