#include "nova/discover/worker_pool.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>

using namespace nova::discover;

TEST_CASE("every index runs exactly once, whatever the thread count", "[worker_pool][threads]") {
  for (unsigned threads : {1u, 2u, 5u}) {
    WorkerPool pool(threads);
    CHECK(pool.size() == threads);
    for (std::size_t count : {0u, 1u, 7u, 1000u}) {
      std::vector<std::atomic<int>> hits(count);
      pool.for_each_index(count, [&](std::size_t i) { ++hits[i]; });
      for (const auto& h : hits) CHECK(h == 1);
    }
  }
}

TEST_CASE("an exception in a loop body reaches the caller and the pool stays usable", "[worker_pool][threads]") {
  WorkerPool pool(3);
  CHECK_THROWS_AS(pool.for_each_index(100, [](std::size_t i) { if (i == 42) throw std::runtime_error("boom"); }),
                  std::runtime_error);
  std::atomic<int> sum = 0;
  pool.for_each_index(10, [&](std::size_t i) { sum += static_cast<int>(i); });
  CHECK(sum == 45);
}
