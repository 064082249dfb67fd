// One convolution case for the fused kernels' CPU emulation (nova/kernels/fused_kernels.hpp,
// fused_wgmma_kernels.hpp, fused_mfma_kernels.hpp): random x, weights and bias, the filter made as the
// runtime makes it (the 3-pass filter transform kernel, then each family's reorder kernel), each
// kernel run through tests/support/kernel_emulation.hpp, and every output pixel compared with a
// double-precision reference that repeats the kernel's storage roundings (V and U to fp16 or bf16
// from fp32 transforms), so the difference left is the kernel's fp32 arithmetic and its output
// rounding, bounded per pixel.
#pragma once

#include "support/kernel_emulation.hpp"  // first: it stands in for the GPU built-ins

#include "nova/kernels/fused_mfma_kernels.hpp"
#include "nova/kernels/fused_wgmma_kernels.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace nova::test {

using nova::kernels::FusedConvArgs;
using nova::kernels::FusedLaunch;
using nova::kernels::Layout;
using nova::kernels::TileGrid;

constexpr std::size_t kGuard = 64;  // NaN-filled elements past y's end: a write there is a bug
// Every byte of a launch's shared memory before it runs: 0xFF makes every fp16, bf16 and fp32 value there a NaN, as a GPU's
// holds whatever earlier blocks left, so a kernel that reads shared memory it never wrote shows as non-finite outputs.
constexpr char kSharedPoison = static_cast<char>(0xFF);

struct Shape {
  int N, C, K, H, W, pad;
};

// The storage types: the unit roundoff of each, and a float rounded to one and back.
template <typename T> constexpr double kUnitRoundoff = std::is_same_v<T, __half> ? 0x1p-11 : 0x1p-8;
template <typename T> float stored(float v) { return static_cast<float>(static_cast<T>(v)); }

// Offset of element (image, c, h, w) of an image tensor with `channels` channels.
inline std::size_t image_offset(Layout layout, int channels, int height, int width, int image, int c, int h, int w) {
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

  // The MFMA kernel (AMD CDNA) with the launch fused_mfma_launch picks for a device of `compute_units`
  // and `lds_limit` bytes of LDS a block.
  Comparison run_mfma(int compute_units, long long lds_limit, int relu) const {
    const FusedLaunch launch = nova::kernels::fused_mfma_launch(n, s_.C, s_.K, grid_.tiles, lds_limit, compute_units);
    REQUIRE(launch.tile_groups > 0);
    std::vector<T> y = fresh_output();
    const FusedConvArgs args{x_.data(), mfma_u_.data(), y.data(), bias_.data(), relu, s_.K, launch, 0, grid_};
    nova::emulation::dynamic_shared.assign(
        static_cast<std::size_t>(nova::kernels::fused_mfma_shared_bytes(n, launch.chunk, launch.tile_groups)), kSharedPoison);
    nova::emulation::launch(nova::kernels::fused_mfma_grid(grid_, s_.K, launch), static_cast<unsigned>(nova::kernels::kMfmaThreads), [&] {
      if constexpr (nova::kernels::fused_mfma_max_tile_groups(n) >= 2)
        if (launch.tile_groups == 2) return nova::kernels::fused_mfma_conv_tiles<Transform, T, layout, 2>(args);
      nova::kernels::fused_mfma_conv_tiles<Transform, T, layout, 1>(args);
    });
    return compare(y, relu);
  }

  // The wgmma kernel with kTiles tiles a group (`group_tiles` of them where given: FusedConvArgs::group_tiles) on
  // `blocks` persistent blocks, U through a ring of `u_stages` stages; the input transform on the tensor cores
  // where `tensor_cores` (the launch must be one fused_wg_tc_input takes).
  template <int kTiles>
  Comparison run_wgmma(unsigned blocks, int relu, int u_stages, bool tensor_cores = false, int group_tiles = 0) const {
    std::vector<T> y = fresh_output();
    FusedConvArgs args{x_.data(), wg_u_.data(), y.data(), bias_.data(), relu, s_.K, FusedLaunch{}, 0, grid_,
                       static_cast<std::int16_t>(u_stages)};
    args.group_tiles = group_tiles;
    nova::kernels::WgTensorMap x_map;
    if (tensor_cores) {
      REQUIRE(nova::kernels::fused_wg_x_map(x_map, x_.data(), grid_));
      args.tc_input = static_cast<std::int16_t>(nova::kernels::fused_wg_tc_copy_tiles(grid_));
    }
    nova::emulation::dynamic_shared.assign(
        static_cast<std::size_t>(nova::kernels::fused_wg_layout(n, m, s_.C, s_.K, kTiles, layout, u_stages,
                                                                nova::kernels::WgStaging::by_outputs, tensor_cores)
                                     .bytes),
        kSharedPoison);
    nova::emulation::launch(dim3(blocks), static_cast<unsigned>(nova::kernels::kWgThreads), [&] {
      nova::kernels::fused_wg_conv_tiles<Transform, T, layout, kTiles>(args, x_map);
    });
    return compare(y, relu);
  }

  // The checks every emulated run must pass: every output pixel written and finite, nothing written
  // past y's end, each pixel within its rounding bound. `launch` says how the run was launched.
  void check(const Comparison& got, int relu, const std::string& launch) const {
    INFO(Transform::name << (std::is_same_v<T, __half> ? " fp16" : " bf16") << (layout == Layout::nhwc ? " NHWC" : " NCHW")
                         << " N" << s_.N << " C" << s_.C << " K" << s_.K << " " << s_.H << "x" << s_.W << " pad " << s_.pad
                         << " relu " << relu << " (" << launch << "): pixels " << got.pixels << ", err/bound "
                         << got.bound_use << ", non-finite " << got.non_finite << ", guard writes " << got.guard_writes);
    CHECK(got.pixels == static_cast<long long>(s_.N) * s_.K * (s_.H + 2 * s_.pad - r + 1) * (s_.W + 2 * s_.pad - r + 1));
    CHECK(got.non_finite == 0);
    CHECK(got.guard_writes == 0);
    CHECK(got.bound_use <= 1.0);
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
        static_cast<std::size_t>(nova::kernels::fused_launch_shared_bytes(n, m, launch)),
        kSharedPoison);
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
    mfma_u_.assign(fused_u_.size(), static_cast<T>(std::nanf("")));
    nova::emulation::launch(nova::kernels::filter_blocks(static_cast<long long>(mfma_u_.size())), nova::kernels::kBlockThreads, [&] {
      nova::kernels::fused_filter_order<T, nova::kernels::MfmaFilterOrder>(plain.data(), mfma_u_.data(), nn, s_.K, s_.C);
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
  std::vector<T> x_, fused_u_, wg_u_, mfma_u_, plain_u_;
  std::vector<float> w_, bias_;
};

}  // namespace nova::test
