// Seeded random numbers for the error lab: xoshiro256** (public domain, Blackman & Vigna) with
// one independent stream per (seed, layer instance), and Marsaglia's polar method for Gaussians.
// Written out here rather than taken from <random> so that a seed gives the same data with every
// standard library (std::normal_distribution's algorithm is unspecified).
#pragma once

#include <cmath>
#include <cstdint>

namespace nova::errlab {

class Random {
 public:
  Random(std::uint64_t seed, std::uint64_t stream) {
    std::uint64_t x = seed ^ splitmix64(stream);
    for (auto& word : state_) word = splitmix64(x);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)

  double gaussian() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u, v, s;
    do {
      u = 2.0 * uniform() - 1.0;
      v = 2.0 * uniform() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double factor = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * factor;
    has_spare_ = true;
    return u * factor;
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  std::uint64_t state_[4];
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace nova::errlab
