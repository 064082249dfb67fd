#include "nova/discover/evolution.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <mutex>
#include <set>

using namespace nova::discover;

namespace {

double distance_to_target(const std::vector<double>& x) {  // minimum 0 at (1, -2, 0.5)
  const double t[] = {1, -2, 0.5};
  double s = 0;
  for (std::size_t i = 0; i < x.size(); ++i) s += (x[i] - t[i]) * (x[i] - t[i]);
  return s;
}

const std::function<void(const EvolutionProgress&)> kSilent = [](const EvolutionProgress&) {};

}  // namespace

TEST_CASE("the ES of paper Alg. 1 converges on a smooth bowl", "[evolution]") {
  WorkerPool pool(1);
  const auto bests = evolution_strategy(3, distance_to_target, EvolutionSettings{}, 7, 1, nullptr, pool, kSilent);
  REQUIRE(bests.size() == 3);
  for (const auto& b : bests) CHECK(b.fitness < 1e-4);
}

TEST_CASE("the ES is deterministic for a seed and independent of the thread count", "[evolution]") {
  EvolutionSettings settings;
  settings.generations = 20;
  WorkerPool one(1), three(3);
  const auto a = evolution_strategy(3, distance_to_target, settings, 42, 1, nullptr, one, kSilent);
  const auto b = evolution_strategy(3, distance_to_target, settings, 42, 1, nullptr, three, kSilent);
  const auto other_seed = evolution_strategy(3, distance_to_target, settings, 43, 1, nullptr, one, kSilent);
  const auto other_stream = evolution_strategy(3, distance_to_target, settings, 42, 2, nullptr, one, kSilent);
  for (std::size_t r = 0; r < a.size(); ++r) {
    CHECK(a[r].point == b[r].point);
    CHECK(a[r].fitness == b[r].fitness);
  }
  CHECK(a[0].point != other_seed[0].point);
  CHECK(a[0].point != other_stream[0].point);
}

TEST_CASE("random streams differ by seed, stream and restart", "[evolution]") {
  std::set<std::uint64_t> seeds;
  for (std::uint64_t seed : {0, 1, 2})
    for (std::uint64_t stream : {1, 2})
      for (std::uint64_t restart : {0, 1, 2}) seeds.insert(stream_seed(seed, stream, restart));
  CHECK(seeds.size() == 18);
}

TEST_CASE("biased mutations move 30% of the coordinates onto the attractor's values (paper B.7)", "[evolution]") {
  EvolutionSettings settings;
  settings.generations = 20;
  const std::function<double(double)> to_integer = [](double x) { return std::round(x); };
  std::mutex mutex;
  std::size_t coordinates = 0, integers = 0;
  auto recording = [&](const std::vector<double>& x) {
    std::lock_guard lock(mutex);
    for (double v : x) coordinates += 1, integers += v == std::round(v);
    return distance_to_target(x);
  };
  WorkerPool pool(2);
  int progress_calls = 0;
  evolution_strategy(3, recording, settings, 3, 1, &to_integer, pool, [&](const EvolutionProgress&) { ++progress_calls; });
  CHECK(progress_calls == settings.restarts * settings.generations);
  // Offspring coordinates are attracted with probability 0.3; the means are not.
  const double share = static_cast<double>(integers) / static_cast<double>(coordinates);
  CHECK(share == Approx(settings.biased_share * 50.0 / 51.0).margin(0.03));
}
