// Times construction + exact 1D verification + all metrics per tile F(2,3) ... F(16,3), the work
// nova-discover does for one point set. Prints a table; the median of several repetitions.
#include "nova/exact/metrics.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

int main() {
  using namespace nova::exact;
  using Clock = std::chrono::steady_clock;
  std::printf("%-8s %6s %12s %12s %12s %12s\n", "tile", "reps", "build ms", "verify ms", "metrics ms", "total ms");
  for (int m = 2; m <= 16; ++m) {
    const TileSize tile{m, 3};
    const int reps = m <= 8 ? 21 : 7;
    std::vector<double> build_ms, verify_ms, metrics_ms, total_ms;
    for (int rep = 0; rep < reps; ++rep) {
      const auto t0 = Clock::now();
      const Transform t = build_transform(tile, standard_points(tile), Scaling::DenominatorsInG);
      const auto t1 = Clock::now();
      const Verification v = verify_identity_1d(tile, t.AT, t.G, t.BT);
      const auto t2 = Clock::now();
      const Metrics mt = compute_metrics(t);
      const auto t3 = Clock::now();
      if (!v.ok || mt.kappa2_V <= 0) return 1;
      auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
      build_ms.push_back(ms(t0, t1));
      verify_ms.push_back(ms(t1, t2));
      metrics_ms.push_back(ms(t2, t3));
      total_ms.push_back(ms(t0, t3));
    }
    auto median = [](std::vector<double> v) {
      std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
      return v[v.size() / 2];
    };
    std::printf("F(%d,3)%*s %6d %12.3f %12.3f %12.3f %12.3f\n", m, m < 10 ? 2 : 1, "", reps, median(build_ms),
                median(verify_ms), median(metrics_ms), median(total_ms));
  }
  return 0;
}
