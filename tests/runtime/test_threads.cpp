// One handle (and several) shared by threads, as runtime.h promises: mixed shapes, dtypes and
// transforms ("tuned" included), the handle's own workspace and the callers' own, a filter cache
// small enough to evict while other threads use its filters. Every output must equal, bit for bit,
// the same call made alone on the same handle (which fixes what "tuned" chose for it). Tagged
// [threads]: tools/sanitize.sh runs these under ThreadSanitizer.
#include "float16.hpp"
#include "nova/runtime.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace {

struct Job {
  nova::ConvDesc desc;
  std::vector<float> x, w, bias;

  size_t output_elements() const {
    const int64_t ho = desc.h + 2 * desc.pad - 2, wo = desc.w + 2 * desc.pad - 2;
    return static_cast<size_t>(desc.n * desc.k * ho * wo);
  }
  // Bytes of x and y in the descriptor's dtype: fp16 and bf16 jobs reuse the float vectors as raw
  // storage.
  size_t output_bytes() const { return output_elements() * (nova::runtime::float16_codec(desc.dtype) ? 2 : 4); }
};

std::vector<Job> make_jobs(unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const char* transforms[] = {"auto", "f2x3_standard", "f4x3_fp16", "f6x3_fp16", "tuned"};
  std::vector<Job> jobs;
  for (int i = 0; i < 10; ++i) {
    Job j;
    j.desc.n = 1 + i % 2, j.desc.c = 3 + i, j.desc.k = 4 + (i * 3) % 7;
    j.desc.h = 9 + i, j.desc.w = 14 - i % 4;
    j.desc.transform = transforms[i % 5];
    j.desc.dtype = i % 3 != 2 ? NOVA_DTYPE_FP32 : i % 6 == 2 ? NOVA_DTYPE_FP16 : NOVA_DTYPE_BF16;
    j.desc.layout = i % 2 ? NOVA_LAYOUT_NHWC : NOVA_LAYOUT_NCHW;
    j.x.resize(static_cast<size_t>(j.desc.n * j.desc.c * j.desc.h * j.desc.w));
    for (auto& v : j.x) v = normal(rng);
    if (const auto* codec = nova::runtime::float16_codec(j.desc.dtype))  // as bit patterns, two per float slot
      for (size_t e = 0; e < j.x.size(); ++e) {
        const uint16_t bits = codec->encode(j.x[e]);
        std::memcpy(reinterpret_cast<char*>(j.x.data()) + 2 * e, &bits, 2);
      }
    j.w.resize(static_cast<size_t>(j.desc.k * j.desc.c * 9));
    for (auto& v : j.w) v = normal(rng) / 3.0f;
    j.bias.resize(static_cast<size_t>(j.desc.k));
    for (auto& v : j.bias) v = normal(rng);
    jobs.push_back(std::move(j));
  }
  return jobs;
}

std::vector<float> run(nova::Handle& handle, const Job& j, bool own_workspace) {
  std::vector<float> y(j.output_elements(), 0.0f);
  std::vector<unsigned char> workspace(own_workspace ? handle.workspace_size(j.desc) : 0);
  // Each job has its own weights buffer, so the cache keys differ between jobs.
  handle.forward(j.desc, j.x.data(), j.w.data(), 1, y.data(), j.bias.data(), true,
                 own_workspace ? workspace.data() : nullptr, workspace.size());
  return y;
}

// Runs every job alone on every handle (the expected outputs: fp32 values, or 16-bit patterns
// two per float), then every job `rounds` times on `threads` threads (thread t starts at job t and
// uses handles[t % size]); returns how many outputs differed from the same job's alone.
int hammer(std::vector<nova::Handle>& handles, const std::vector<Job>& jobs, int threads, int rounds) {
  std::vector<std::vector<std::vector<float>>> expected(handles.size());
  for (size_t h = 0; h < handles.size(); ++h)
    for (const Job& j : jobs) expected[h].push_back(run(handles[h], j, false));
  std::atomic<int> wrong{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const size_t h = static_cast<size_t>(t) % handles.size();
      for (int r = 0; r < rounds; ++r)
        for (size_t i = 0; i < jobs.size(); ++i) {
          const size_t k = (i + static_cast<size_t>(t)) % jobs.size();
          const std::vector<float> y = run(handles[h], jobs[k], (r + t) % 2 == 0);
          if (std::memcmp(y.data(), expected[h][k].data(), jobs[k].output_bytes()) != 0) ++wrong;
        }
    });
  for (auto& p : pool) p.join();
  return wrong;
}

}  // namespace

TEST_CASE("one handle shared by threads computes what it computes alone", "[threads]") {
  const std::vector<Job> jobs = make_jobs(17);
  std::vector<nova::Handle> shared(1);
  shared[0].set_filter_cache_limit(16 << 10);  // a few filters: evicted while others use them
  CHECK(hammer(shared, jobs, 6, 3) == 0);
  CHECK(shared[0].filter_cache_bytes() <= (16 << 10));
}

TEST_CASE("several handles used by several threads each", "[threads]") {
  const std::vector<Job> jobs = make_jobs(29);
  std::vector<nova::Handle> handles(3);
  CHECK(hammer(handles, jobs, 6, 2) == 0);
}

TEST_CASE("the filter cache stays within its limit however many weights it sees") {
  nova::Handle handle;
  nova::ConvDesc d;
  d.n = 1, d.c = 8, d.k = 8, d.h = d.w = 12;
  const size_t one = 8 * 8 * 36 * sizeof(float);  // one F(4,3) filter set: n^2 K C floats
  handle.set_filter_cache_limit(10 * one);
  std::vector<float> x(static_cast<size_t>(8 * 12 * 12), 1.0f), y(static_cast<size_t>(8 * 12 * 12));
  d.transform = "f4x3_nova";
  std::vector<std::vector<float>> weights(200, std::vector<float>(8 * 8 * 9, 0.5f));
  for (auto& w : weights) {
    handle.forward(d, x.data(), w.data(), 1, y.data());
    CHECK(handle.filter_cache_bytes() <= 10 * one);
  }
  CHECK(handle.filter_cache_bytes() == 10 * one);  // full, and never more
  handle.set_filter_cache_limit(one / 2);          // smaller than one filter: nothing kept
  CHECK(handle.filter_cache_bytes() == 0);
  handle.forward(d, x.data(), weights[0].data(), 1, y.data());
  CHECK(handle.filter_cache_bytes() == 0);
  CHECK(y[20] == Approx(8 * 9 * 0.5f));  // interior pixel: the filter was used though not kept
}
