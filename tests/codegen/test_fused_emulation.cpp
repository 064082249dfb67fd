// The fused fp16 and bf16 convolution, both generations: the mma.sync kernel
// (nova/kernels/fused_kernels.hpp) and the warp-specialised wgmma kernel (fused_wgmma_kernels.hpp,
// whose products the emulation runs through the same shared-memory descriptors the tensor cores
// read, and whose block barriers and bulk copies it models). For the first: its tile loops in both layouts, the
// filter reorder into its padded layout, every launch variant (tile groups, K blocks a warp,
// chunked channels) and every channel-count class (C below 16, odd, not a multiple of 16, beyond
// one chunk; K odd and not a multiple of 16), emulated on the CPU through the portable product
// (the mma path has the same fragment ownership; ctest -L gpu checks it against FP64).
// The reference repeats the kernel's storage roundings (V and U to fp16 or bf16 from fp32
// transforms), then accumulates in double, so the difference left is the kernel's fp32 arithmetic
// and its output rounding, bounded per pixel.
#include "support/kernel_emulation.hpp"  // first: it stands in for the GPU built-ins

#include "all_transforms.hpp"
#include "nova/kernels/fused_wgmma_kernels.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

namespace {

using nova::kernels::FusedConvArgs;
using nova::kernels::FusedLaunch;
using nova::kernels::Layout;
using nova::kernels::TileGrid;

constexpr std::size_t kGuard = 64;  // NaN-filled elements past y's end: a write there is a bug

struct Shape {
  int N, C, K, H, W, pad;
};

// The storage types: the unit roundoff of each, and a float rounded to one and back.
template <typename T> constexpr double kUnitRoundoff = std::is_same_v<T, __half> ? 0x1p-11 : 0x1p-8;
template <typename T> float stored(float v) { return static_cast<float>(static_cast<T>(v)); }

// Offset of element (image, c, h, w) of an image tensor with `channels` channels.
std::size_t image_offset(Layout layout, int channels, int height, int width, int image, int c, int h, int w) {
  const auto i = static_cast<std::size_t>(image), cc = static_cast<std::size_t>(c);
  return layout == Layout::nhwc ? ((i * height + h) * width + w) * channels + cc : ((i * channels + cc) * height + h) * width + w;
}

// Every pixel of y (N x K x Hout x Wout, fp16 or bf16) against the double-precision reference.
struct Comparison {
  long long pixels = 0, non_finite = 0, guard_writes = 0;
  double bound_use = 0;  // max |got - want| / bound
};

template <class Transform, typename T, Layout layout>
class FusedCase {
 public:
  static constexpr int m = Transform::m, r = Transform::r, n = Transform::n, nn = n * n;

  FusedCase(const Shape& s, unsigned seed) : s_(s) {
    REQUIRE(nova::kernels::make_tile_grid(Transform::m, Transform::r, s.N, s.C, s.H, s.W, s.pad, grid_));
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    x_.resize(static_cast<std::size_t>(s.N) * s.H * s.W * s.C);
    for (auto& v : x_) v = static_cast<T>(normal(rng));
    w_.resize(static_cast<std::size_t>(s.K) * s.C * r * r);
    for (auto& v : w_) v = normal(rng) / std::sqrt(static_cast<float>(s.C * r * r));
    bias_.resize(static_cast<std::size_t>(s.K));
    for (auto& v : bias_) v = normal(rng);
    transform_filter();
  }

  // The kernel body with the template arguments `launch` needs.
  Comparison run(const FusedLaunch& launch, int relu) const {
    if (launch.chunked) return run<1, true>(launch, relu);
    return launch.k_blocks == 2 ? run<2, false>(launch, relu) : run<1, false>(launch, relu);
  }

  // The wgmma kernel with kTiles tiles a group on `blocks` persistent blocks.
  template <int kTiles>
  Comparison run_wgmma(unsigned blocks, int relu) const {
    std::vector<T> y = fresh_output();
    const FusedConvArgs args{x_.data(), wg_u_.data(), y.data(), bias_.data(), relu, s_.K, FusedLaunch{}, 0, grid_};
    nova::emulation::dynamic_shared.assign(static_cast<std::size_t>(nova::kernels::fused_wg_layout(n, m, s_.C, kTiles).bytes),
                                           '\0');
    nova::emulation::launch(dim3(blocks), static_cast<unsigned>(nova::kernels::kWgThreads), [&] {
      nova::kernels::fused_wg_conv_tiles<Transform, T, layout, kTiles>(args);
    });
    return compare(y, relu);
  }

 private:
  // y before a launch: NaN everywhere, guard elements included.
  std::vector<T> fresh_output() const {
    const std::size_t count = static_cast<std::size_t>(s_.N) * grid_.out_height * grid_.out_width * s_.K;
    std::vector<T> y(count + kGuard);
    std::memset(static_cast<void*>(y.data()), 0xff, y.size() * sizeof(T));
    return y;
  }

  template <int kKBlocks, bool kChunked>
  Comparison run(const FusedLaunch& launch, int relu) const {
    std::vector<T> y = fresh_output();
    int k_slice = 0;
    const dim3 grid = nova::kernels::fused_grid(grid_, s_.K, launch, k_slice);
    const FusedConvArgs args{x_.data(), fused_u_.data(), y.data(), bias_.data(), relu, s_.K, launch, k_slice, grid_};
    nova::emulation::dynamic_shared.assign(
        static_cast<std::size_t>(nova::kernels::fused_shared_bytes(n, launch.chunk, launch.tile_groups, launch.k_blocks)),
        '\0');
    nova::emulation::launch(grid, static_cast<unsigned>(nova::kernels::kFusedThreads), [&] {
      nova::kernels::fused_conv_tiles<Transform, T, layout, kKBlocks, kChunked>(args);
    });
    return compare(y, relu);
  }

  // U as the runtime makes it: the 3-pass filter transform kernel, then the reorder kernel.
  void transform_filter() {
    const long long filters = static_cast<long long>(s_.K) * s_.C;
    std::vector<T> plain(static_cast<std::size_t>(nn * filters));
    // NaN-filled: the reorder must write every slot of the padded layout
    fused_u_.assign(static_cast<std::size_t>(nova::kernels::fused_filter_elements(n, s_.K, s_.C)),
                    static_cast<T>(std::nanf("")));
    nova::emulation::launch(nova::kernels::filter_blocks(filters), nova::kernels::kBlockThreads,
                            [&] { nova::kernels::filter_transform_tiles<Transform>(w_.data(), plain.data(), s_.K, s_.C); });
    nova::emulation::launch(nova::kernels::filter_blocks(static_cast<long long>(fused_u_.size())), nova::kernels::kBlockThreads, [&] {
      nova::kernels::fused_filter_order<T>(plain.data(), fused_u_.data(), nn, s_.K, s_.C);
    });
    wg_u_.assign(static_cast<std::size_t>(nova::kernels::fused_wg_filter_elements(n, s_.K, s_.C)),
                 static_cast<T>(std::nanf("")));
    nova::emulation::launch(nova::kernels::filter_blocks(static_cast<long long>(wg_u_.size())), nova::kernels::kBlockThreads, [&] {
      nova::kernels::fused_wg_filter_order<T>(plain.data(), wg_u_.data(), n, s_.K, s_.C);
    });
    plain_u_ = plain;
  }

  // V of (channel c, tile p), rounded to T as the kernel stores it.
  void input_tile(int c, long long p, float v[nn]) const {
    const long long per_image = static_cast<long long>(grid_.tiles_h) * grid_.tiles_w;
    const int image = static_cast<int>(p / per_image), rest = static_cast<int>(p % per_image);
    const int row = rest / grid_.tiles_w * m, col = rest % grid_.tiles_w * m;
    float d[nn];
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const int h = row - s_.pad + i, w = col - s_.pad + j;
        const bool inside = h >= 0 && h < s_.H && w >= 0 && w < s_.W;
        d[i * n + j] = inside ? static_cast<float>(x_[image_offset(layout, s_.C, s_.H, s_.W, image, c, h, w)]) : 0.0f;
      }
    Transform::input_2d(d, v);
    for (int xi = 0; xi < nn; ++xi) v[xi] = stored<T>(v[xi]);
  }

  Comparison compare(const std::vector<T>& y, int relu) const {
    const double u_out = kUnitRoundoff<T>, u32 = 0x1p-24;
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
                y[image_offset(layout, s_.K, grid_.out_height, grid_.out_width, image, k, row + i, col + j)]);
            ++out.pixels;
            if (!std::isfinite(got)) {
              ++out.non_finite;
              continue;
            }
            // the output's rounding to T, plus fp32 sums of C products and of the output transform.
            const double bound = u_out * std::fabs(expected) + 4.0 * (s_.C + nn) * u32 * (scale[i * m + j] + 1.0);
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
  std::vector<T> x_, fused_u_, wg_u_, plain_u_;
  std::vector<float> w_, bias_;
};

// Every launch variant a shape may take: the launch fused_launch picks with a whole SM's shared
// memory, chunks of one and of two channel steps, and for even C and K (the unchunked kernels'
// contract) tile groups 1, 2 and 4 and two K blocks a warp (also with two tile groups, which the
// kernel allows though fused_launch never picks it).
template <class Transform, Layout layout, typename T = __half>
void check_launches(const Shape& s, unsigned seed) {
  const FusedCase<Transform, T, layout> c(s, seed);
  const int Cp = nova::kernels::fused_padded_channels(s.C);
  std::vector<FusedLaunch> launches = {nova::kernels::fused_launch(Transform::n, s.C, s.K, 227 * 1024),
                                       {1, 1, 16, true}, {1, 1, 32, true}};
  if (s.C % 2 == 0 && s.K % 2 == 0)
    launches.insert(launches.end(),
                    {{1, 1, Cp, false}, {2, 1, Cp, false}, {4, 1, Cp, false}, {1, 2, Cp, false}, {2, 2, Cp, false}});
  for (int relu = 0; relu <= 1; ++relu)
    for (const FusedLaunch& launch : launches) {
      REQUIRE(launch.tile_groups > 0);
      const Comparison r = c.run(launch, relu);
      INFO(Transform::name << (std::is_same_v<T, __half> ? " fp16" : " bf16") << (layout == Layout::nhwc ? " NHWC" : " NCHW") << " N" << s.N << " C" << s.C << " K" << s.K
                           << " " << s.H << "x" << s.W << " pad " << s.pad << " relu " << relu << " (tile groups "
                           << launch.tile_groups << ", K blocks " << launch.k_blocks << ", chunk " << launch.chunk
                           << (launch.chunked ? " chunked" : "") << "): pixels " << r.pixels << ", err/bound "
                           << r.bound_use << ", non-finite " << r.non_finite << ", guard writes " << r.guard_writes);
      CHECK(r.pixels == static_cast<long long>(s.N) * s.K * (s.H + 2 * s.pad - 2) * (s.W + 2 * s.pad - 2));
      CHECK(r.non_finite == 0);
      CHECK(r.guard_writes == 0);
      CHECK(r.bound_use <= 1.0);
    }
}

// Partial tile blocks, clipped border tiles, pad 0 to 2, several blocks and several tile groups in a
// block, with channel counts the kernel takes as they are.
template <class Transform>
void check_fused() {
  if constexpr (Transform::n <= nova::kernels::kFusedMaxTileSide) {
    const std::vector<Shape> shapes = {
        {1, 16, 16, 9, 11, 1}, {2, 32, 80, 7, 13, 0}, {1, 16, 32, 5, 6, 2}, {2, 16, 16, 18, 21, 1}};
    unsigned seed = 7;
    for (const Shape& s : shapes) check_launches<Transform, Layout::nhwc>(s, seed++);
  }
}

template <class... Transforms>
void check_all(nova::generated::TransformList<Transforms...>) {
  (check_fused<Transforms>(), ...);
}

}  // namespace

TEST_CASE("fused fp16 kernel, emulated on the CPU, matches the reference within its rounding") {
  check_all(nova::generated::AllTransforms{});
}

// The same loops with padded channels, NCHW planes and chunks, on one F(4,3) and the F(2,3)
// transform (the transforms differ only in their straight-line code, which the case above covers).
TEST_CASE("fused fp16 kernel: every channel-count class and both layouts, emulated") {
  // C < 16 and odd, K odd; C even, not a multiple of 8, K not a multiple of 16; C a multiple of 8
  // only; C beyond two chunks of two steps (and beyond 128) with K beyond one block's slice of 64
  // (chunked: blockIdx.y > 0).
  const std::vector<Shape> shapes = {{2, 3, 5, 7, 9, 1}, {1, 18, 10, 6, 11, 1}, {1, 24, 40, 9, 5, 0},
                                     {1, 136, 72, 5, 6, 1}};
  unsigned seed = 21;
  for (const Shape& s : shapes) {
    check_launches<nova::generated::f4x3_standard::Transform, Layout::nhwc>(s, seed++);
    check_launches<nova::generated::f4x3_standard::Transform, Layout::nchw>(s, seed++);
    check_launches<nova::generated::f2x3_standard::Transform, Layout::nchw>(s, seed++);
  }
}

// bf16: the same loops on the storage type with 8 bits of precision, in both layouts, unchunked and
// chunked.
TEST_CASE("fused bf16 kernel, emulated on the CPU, matches the reference within its rounding") {
  const std::vector<Shape> shapes = {{2, 32, 80, 7, 13, 0}, {2, 3, 5, 7, 9, 1}, {1, 136, 72, 5, 6, 1}};
  unsigned seed = 41;
  for (const Shape& s : shapes) {
    check_launches<nova::generated::f4x3_standard::Transform, Layout::nhwc, hip_bfloat16>(s, seed++);
    check_launches<nova::generated::f4x3_fp16_dyadic::Transform, Layout::nchw, hip_bfloat16>(s, seed++);
  }
}

TEST_CASE("fused kernel launch: tile side, padded channels and shared memory") {
  using nova::kernels::fused_launch;
  const auto is = [](FusedLaunch l, int tile_groups, int k_blocks, int chunk, bool chunked) {
    return l.tile_groups == tile_groups && l.k_blocks == k_blocks && l.chunk == chunk && l.chunked == chunked;
  };
  CHECK(is(fused_launch(6, 16, 64, 227 * 1024), 4, 1, 16, false));     // two blocks of 64 tiles share an SM
  CHECK(is(fused_launch(6, 64, 64, 227 * 1024), 1, 1, 64, false));     // two blocks of 16 tiles
  CHECK(is(fused_launch(6, 128, 128, 227 * 1024), 1, 2, 128, false));  // one block of 16 tiles, two K blocks a warp
  CHECK(is(fused_launch(6, 256, 256, 227 * 1024), 1, 1, 128, true));   // two chunks of 128 channels
  CHECK(is(fused_launch(6, 512, 64, 227 * 1024), 1, 1, 128, true));    // four
  CHECK(is(fused_launch(6, 300, 64, 227 * 1024), 1, 1, 160, true));    // 304 padded: chunks of 160 and 144
  CHECK(is(fused_launch(4, 256, 256, 227 * 1024), 1, 2, 256, false));
  CHECK(is(fused_launch(6, 16, 64, 64 * 1024), 1, 1, 16, true));       // an AMD CU's 64 KB of LDS: one step a chunk
  CHECK(is(fused_launch(4, 16, 64, 64 * 1024), 1, 2, 16, false));      // one block of F(2,3) fits
  CHECK(is(fused_launch(6, 24, 64, 227 * 1024), 2, 1, 32, false));     // C padded to 32
  CHECK(is(fused_launch(6, 3, 64, 227 * 1024), 1, 1, 16, true));       // odd C: chunked, element by element
  CHECK(is(fused_launch(6, 16, 5, 227 * 1024), 1, 1, 16, true));       // odd K too
  CHECK(is(fused_launch(6, 64, 40, 227 * 1024), 1, 1, 64, false));
  CHECK(is(fused_launch(8, 64, 64, 227 * 1024), 0, 0, 0, false));      // F(6,3): too many accumulators
  CHECK(is(fused_launch(6, 64, 64, 36 * 1024), 0, 0, 0, false));       // not even one channel step fits
  CHECK(is(fused_launch(6, 0, 64, 227 * 1024), 0, 0, 0, false));
}

TEST_CASE("fused filter layout: every U element of the padded filter has its own slot") {
  const int nn = 36, K = 32, C = 48;
  std::vector<int> seen(static_cast<std::size_t>(nn) * K * C, 0);
  for (int xi = 0; xi < nn; ++xi)
    for (int k = 0; k < K; ++k)
      for (int c = 0; c < C; ++c) ++seen[static_cast<std::size_t>(nova::kernels::fused_filter_index(xi, k, c, K, C))];
  CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<long>(seen.size()));
}

// The wgmma kernel: every channel-count class (C < 16 and odd; not a multiple of 16; 64; beyond 128),
// K below, at and beyond one block of 64 (odd, not a multiple of 8), border tiles and pads 0 to 2,
// both layouts, fp16 and bf16, bias with and without ReLU, 16 and 8 tiles a group, and persistent
// blocks that take several tile groups each (so V slots and U stages are reused).
template <class Transform, Layout layout, typename T>
void check_wgmma(const Shape& s, unsigned seed) {
  const FusedCase<Transform, T, layout> c(s, seed);
  for (int relu = 0; relu <= 1; ++relu)
    for (const unsigned blocks : {1u, 3u})
      for (const int tiles : {16, 8}) {
        if (nova::kernels::fused_wg_layout(Transform::n, Transform::m, s.C, tiles).bytes > 227 * 1024) continue;  // never launched
        const Comparison r = tiles == 16 ? c.template run_wgmma<16>(blocks, relu) : c.template run_wgmma<8>(blocks, relu);
        INFO(Transform::name << (std::is_same_v<T, __half> ? " fp16" : " bf16") << (layout == Layout::nhwc ? " NHWC" : " NCHW")
                             << " N" << s.N << " C" << s.C << " K" << s.K << " " << s.H << "x" << s.W << " pad " << s.pad
                             << " relu " << relu << ", " << blocks << " blocks of " << tiles << "-tile groups: pixels "
                             << r.pixels << ", err/bound " << r.bound_use << ", non-finite " << r.non_finite
                             << ", guard writes " << r.guard_writes);
        CHECK(r.pixels == static_cast<long long>(s.N) * s.K * (s.H + 2 * s.pad - Transform::r + 1) *
                              (s.W + 2 * s.pad - Transform::r + 1));
        CHECK(r.non_finite == 0);
        CHECK(r.guard_writes == 0);
        CHECK(r.bound_use <= 1.0);
      }
}

TEST_CASE("wgmma fused kernel, emulated on the CPU: channel classes, layouts, fp16 and bf16") {
  using nova::generated::f2x3_standard::Transform;
  using F43 = nova::generated::f4x3_standard::Transform;
  const std::vector<Shape> shapes = {{2, 3, 5, 7, 9, 1}, {1, 24, 72, 9, 5, 0}, {2, 16, 16, 18, 21, 1},
                                     {1, 64, 130, 6, 7, 2}, {1, 136, 40, 5, 6, 1}};
  unsigned seed = 61;
  for (const Shape& s : shapes) {
    check_wgmma<F43, Layout::nhwc, __half>(s, seed++);
    check_wgmma<F43, Layout::nchw, hip_bfloat16>(s, seed++);
  }
  check_wgmma<Transform, Layout::nhwc, hip_bfloat16>(shapes[2], seed++);
  check_wgmma<Transform, Layout::nchw, __half>(shapes[0], seed++);
}

TEST_CASE("wgmma operand layout: descriptors name the elements the kernel writes, filter slots are unique") {
  using namespace nova::kernels;
  for (const std::uint32_t address : {0u, 4096u, 200704u})
    for (int row = 0; row < kWgRows; ++row)
      for (int k = 0; k < kWgDepth; ++k)
        REQUIRE(wg_descriptor_element(wg_descriptor(address), row, k) ==
                address + 2u * static_cast<std::uint32_t>(wg_operand_offset(row, k)));
  // Every accumulator element of m64n16 has one owner.
  std::vector<int> owners(static_cast<std::size_t>(kWgRows) * 16, 0);
  for (int thread = 0; thread < 128; ++thread)
    for (int d = 0; d < 8; ++d) ++owners[static_cast<std::size_t>(wg_accumulator_row(thread, d) * 16 + wg_accumulator_column(thread, d))];
  CHECK(std::count(owners.begin(), owners.end(), 1) == static_cast<long>(owners.size()));
  const int n = 6, K = 72, C = 40;
  std::vector<int> seen(static_cast<std::size_t>(fused_wg_filter_elements(n, K, C)), 0);
  for (int xi = 0; xi < n * n; ++xi)
    for (int k = 0; k < fused_wg_padded_outputs(K); ++k)
      for (int c = 0; c < fused_padded_channels(C); ++c) ++seen[static_cast<std::size_t>(fused_wg_filter_index(n, xi, k, c, C))];
  CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<long>(seen.size()));
  // 16 tiles where two V slots of every channel fit, 8 where only half as many tiles do, else none.
  CHECK(fused_wg_tiles(6, 4, 64, 64, 227 * 1024) == 16);
  CHECK(fused_wg_tiles(6, 4, 128, 128, 227 * 1024) == 8);
  CHECK(fused_wg_tiles(6, 4, 256, 64, 227 * 1024) == 0);
  CHECK(fused_wg_tiles(4, 2, 256, 256, 227 * 1024) == 8);
  CHECK(fused_wg_tiles(8, 6, 16, 16, 227 * 1024) == 0);
  CHECK(fused_uses_wgmma(FusedDevice{227 * 1024, 132, true}, 6, 4, 64, 64));
  CHECK_FALSE(fused_uses_wgmma(FusedDevice{227 * 1024, 132, false}, 6, 4, 64, 64));
}
