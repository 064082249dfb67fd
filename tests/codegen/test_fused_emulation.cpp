// The fused NHWC fp16 convolution (nova/kernels/fused_kernels.hpp): its tile loops, the filter
// reorder into its layout and every tile-group count, emulated on the CPU through the portable
// product (the mma path has the same fragment ownership; the GPU bench checks it against FP64).
// The reference repeats the kernel's storage roundings (V and U to fp16 from fp32 transforms),
// then accumulates in double, so the difference left is the kernel's fp32 arithmetic and its
// fp16 output rounding, bounded per pixel.
#include "support/kernel_emulation.hpp"  // first: it stands in for the GPU built-ins

#include "all_transforms.hpp"
#include "nova/kernels/fused_kernels.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

namespace {

using nova::kernels::FusedConvArgs;
using nova::kernels::TileGrid;

constexpr std::size_t kGuard = 64;  // NaN-filled elements past y's end: a write there is a bug

struct Shape {
  int N, C, K, H, W, pad;
};

float to_half_and_back(float v) { return static_cast<float>(static_cast<__half>(v)); }

// Every pixel of y (N x Hout x Wout x K, fp16) against the double-precision reference.
struct Comparison {
  long long pixels = 0, non_finite = 0, guard_writes = 0;
  double bound_use = 0;  // max |got - want| / bound
};

template <class Transform>
class FusedCase {
 public:
  static constexpr int m = Transform::m, r = Transform::r, n = Transform::n, nn = n * n;

  FusedCase(const Shape& s, unsigned seed) : s_(s) {
    REQUIRE(nova::kernels::make_tile_grid<Transform>(s.N, s.C, s.H, s.W, s.pad, grid_));
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    x_.resize(static_cast<std::size_t>(s.N) * s.H * s.W * s.C);
    for (auto& v : x_) v = static_cast<__half>(normal(rng));
    w_.resize(static_cast<std::size_t>(s.K) * s.C * r * r);
    for (auto& v : w_) v = normal(rng) / std::sqrt(static_cast<float>(s.C * r * r));
    bias_.resize(static_cast<std::size_t>(s.K));
    for (auto& v : bias_) v = normal(rng);
    transform_filter();
  }

  template <int kTileGroups, int kKBlocks>
  Comparison run(int relu) const {
    const std::size_t count = static_cast<std::size_t>(s_.N) * grid_.out_height * grid_.out_width * s_.K;
    std::vector<__half> y(count + kGuard);
    std::memset(static_cast<void*>(y.data()), 0xff, y.size() * sizeof(__half));  // NaN everywhere
    const FusedConvArgs args{x_.data(), fused_u_.data(), y.data(), bias_.data(), relu, s_.K, grid_};
    const int block_tiles = nova::kernels::fused_block_tiles(kTileGroups);
    const auto blocks = static_cast<unsigned>((grid_.tiles + block_tiles - 1) / block_tiles);
    nova::emulation::dynamic_shared.assign(
        static_cast<std::size_t>(nova::kernels::fused_shared_bytes(n, s_.C, kTileGroups, kKBlocks)), '\0');
    nova::emulation::launch(blocks, static_cast<unsigned>(nova::kernels::kFusedThreads),
                            [&] { nova::kernels::fused_conv_tiles<Transform, kTileGroups, kKBlocks>(args); });
    return compare(y, relu);
  }

 private:
  // U as the runtime makes it: the 3-pass filter transform kernel, then the reorder kernel.
  void transform_filter() {
    const long long filters = static_cast<long long>(s_.K) * s_.C;
    std::vector<__half> plain(static_cast<std::size_t>(nn * filters));
    fused_u_.assign(plain.size(), static_cast<__half>(0.0f));
    nova::emulation::launch(nova::kernels::filter_blocks(filters), nova::kernels::kBlockThreads,
                            [&] { nova::kernels::filter_transform_tiles<Transform>(w_.data(), plain.data(), s_.K, s_.C); });
    nova::emulation::launch(nova::kernels::filter_blocks(nn * filters), nova::kernels::kBlockThreads, [&] {
      nova::kernels::fused_filter_order<__half>(plain.data(), fused_u_.data(), nn, s_.K, s_.C);
    });
    plain_u_ = plain;
  }

  // V of (channel c, tile p), rounded to fp16 as the kernel stores it.
  void input_tile(int c, long long p, float v[nn]) const {
    const long long per_image = static_cast<long long>(grid_.tiles_h) * grid_.tiles_w;
    const int image = static_cast<int>(p / per_image), rest = static_cast<int>(p % per_image);
    const int row = rest / grid_.tiles_w * m, col = rest % grid_.tiles_w * m;
    float d[nn];
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const int h = row - s_.pad + i, w = col - s_.pad + j;
        const bool inside = h >= 0 && h < s_.H && w >= 0 && w < s_.W;
        d[i * n + j] =
            inside ? static_cast<float>(x_[((static_cast<std::size_t>(image) * s_.H + h) * s_.W + w) * s_.C + c]) : 0.0f;
      }
    Transform::input_2d(d, v);
    for (int xi = 0; xi < nn; ++xi) v[xi] = to_half_and_back(v[xi]);
  }

  Comparison compare(const std::vector<__half>& y, int relu) const {
    const double u16 = 0x1p-11, u32 = 0x1p-24;
    Comparison out;
    std::vector<float> v(static_cast<std::size_t>(s_.C) * nn);
    for (long long p = 0; p < grid_.tiles; ++p) {
      for (int c = 0; c < s_.C; ++c) input_tile(c, p, &v[static_cast<std::size_t>(c) * nn]);
      const long long per_image = static_cast<long long>(grid_.tiles_h) * grid_.tiles_w;
      const int image = static_cast<int>(p / per_image), rest = static_cast<int>(p % per_image);
      const int row = rest / grid_.tiles_w * m, col = rest % grid_.tiles_w * m;
      for (int k = 0; k < s_.K; ++k) {
        double mm[nn], mm_abs[nn];
        for (int xi = 0; xi < nn; ++xi) {
          double sum = 0, sum_abs = 0;
          for (int c = 0; c < s_.C; ++c) {
            const double term = static_cast<double>(plain_u_[(static_cast<std::size_t>(xi) * s_.K + k) * s_.C + c]) *
                                v[static_cast<std::size_t>(c) * nn + xi];
            sum += term, sum_abs += std::fabs(term);
          }
          mm[xi] = sum, mm_abs[xi] = sum_abs;
        }
        double want[m * m], scale[m * m];
        Transform::output_2d(mm, want);
        output_abs(mm_abs, scale);
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < m; ++j) {
            if (row + i >= grid_.out_height || col + j >= grid_.out_width) continue;
            double expected = want[i * m + j] + bias_[static_cast<std::size_t>(k)];
            if (relu) expected = std::max(expected, 0.0);
            const float got = static_cast<float>(
                y[((static_cast<std::size_t>(image) * grid_.out_height + row + i) * grid_.out_width + col + j) * s_.K + k]);
            ++out.pixels;
            if (!std::isfinite(got)) {
              ++out.non_finite;
              continue;
            }
            // fp16 output rounding, plus fp32 sums of C products and of the output transform.
            const double bound = u16 * std::fabs(expected) + 4.0 * (s_.C + nn) * u32 * (scale[i * m + j] + 1.0);
            out.bound_use = std::max(out.bound_use, std::fabs(got - expected) / bound);
          }
      }
    }
    for (std::size_t i = y.size() - kGuard; i < y.size(); ++i)
      if (!std::isnan(static_cast<float>(y[i]))) ++out.guard_writes;
    return out;
  }

  // |A^T| |M| |A|: the magnitude the fp32 output transform's rounding scales with.
  static void output_abs(const double mm_abs[nn], double out[m * m]) {
    for (int i = 0; i < m * m; ++i) out[i] = 0;
    for (int xi = 0; xi < nn; ++xi) {
      double unit[nn] = {}, column[m * m];
      unit[xi] = 1;
      Transform::output_2d(unit, column);
      for (int i = 0; i < m * m; ++i) out[i] += std::fabs(column[i]) * mm_abs[xi];
    }
  }

  Shape s_;
  TileGrid grid_{};
  std::vector<__half> x_, fused_u_, plain_u_;
  std::vector<float> w_, bias_;
};

template <class Transform>
void check_fused() {
  if constexpr (Transform::n <= nova::kernels::kFusedMaxTileSide) {
    // Partial tile blocks, clipped border tiles, pad 0 to 2, warps with a second block of K,
    // several blocks and several tile groups in a block.
    const std::vector<Shape> shapes = {
        {1, 16, 16, 9, 11, 1}, {2, 32, 80, 7, 13, 0}, {1, 16, 32, 5, 6, 2}, {2, 16, 16, 18, 21, 1}};
    unsigned seed = 7;
    for (const Shape& s : shapes) {
      const FusedCase<Transform> c(s, seed++);
      for (int relu = 0; relu <= 1; ++relu) {
        // Every (tile groups, K blocks per warp) the generated kernels instantiate, and two tile groups
        // with two K blocks, which the kernel allows though fused_launch never picks it.
        const std::pair<const char*, Comparison> results[] = {
            {"1, 1", c.template run<1, 1>(relu)}, {"2, 1", c.template run<2, 1>(relu)},
            {"4, 1", c.template run<4, 1>(relu)}, {"1, 2", c.template run<1, 2>(relu)},
            {"2, 2", c.template run<2, 2>(relu)}};
        for (const auto& [launch, r] : results) {
          INFO(Transform::name << " N" << s.N << " C" << s.C << " K" << s.K << " " << s.H << "x" << s.W << " pad "
                               << s.pad << " relu " << relu << " (tile groups, K blocks) (" << launch << ")"
                               << ": pixels " << r.pixels
                               << ", err/bound " << r.bound_use << ", non-finite " << r.non_finite << ", guard writes "
                               << r.guard_writes);
          CHECK(r.pixels == static_cast<long long>(s.N) * s.K * (s.H + 2 * s.pad - 2) * (s.W + 2 * s.pad - 2));
          CHECK(r.non_finite == 0);
          CHECK(r.guard_writes == 0);
          CHECK(r.bound_use <= 1.0);
        }
      }
    }
  }
}

template <class... Transforms>
void check_all(nova::generated::TransformList<Transforms...>) {
  (check_fused<Transforms>(), ...);
}

}  // namespace

TEST_CASE("fused NHWC fp16 kernel, emulated on the CPU, matches the reference within its rounding") {
  check_all(nova::generated::AllTransforms{});
}

TEST_CASE("fused kernel eligibility: tile side, channel multiples and shared memory") {
  using nova::kernels::fused_launch;
  const auto is = [](nova::kernels::FusedLaunch l, int tile_groups, int k_blocks) {
    return l.tile_groups == tile_groups && l.k_blocks == k_blocks;
  };
  CHECK(is(fused_launch(6, 16, 64, 227 * 1024), 4, 1));     // two blocks of 64 tiles share an SM
  CHECK(is(fused_launch(6, 64, 64, 227 * 1024), 1, 1));     // two blocks of 16 tiles
  CHECK(is(fused_launch(6, 128, 128, 227 * 1024), 1, 2));   // one block of 16 tiles, two K blocks a warp
  CHECK(is(fused_launch(6, 256, 256, 227 * 1024), 0, 0));
  CHECK(is(fused_launch(4, 256, 256, 227 * 1024), 1, 2));
  CHECK(is(fused_launch(6, 16, 64, 64 * 1024), 0, 0));      // an AMD CU's 64 KB of LDS: not with the U buffers
  CHECK(is(fused_launch(4, 16, 64, 64 * 1024), 1, 2));      // one block of F(2,3) fits
  CHECK(is(fused_launch(6, 512, 64, 227 * 1024), 0, 0));
  CHECK(is(fused_launch(8, 64, 64, 227 * 1024), 0, 0));     // F(6,3): too many accumulators
  CHECK(is(fused_launch(6, 24, 64, 227 * 1024), 0, 0));
  CHECK(is(fused_launch(6, 64, 40, 227 * 1024), 0, 0));
}

TEST_CASE("fused filter layout: every U element has its own slot") {
  const int nn = 36, K = 32, C = 48;
  std::vector<int> seen(static_cast<std::size_t>(nn) * K * C, 0);
  for (int xi = 0; xi < nn; ++xi)
    for (int k = 0; k < K; ++k)
      for (int c = 0; c < C; ++c) ++seen[static_cast<std::size_t>(nova::kernels::fused_filter_index(xi, k, c, K, C))];
  CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<long>(seen.size()));
}
