// Checks every transform kernel of one generated config against the CPU path (the registry's
// FP64 host transforms) on fresh random fp16, bf16 and fp32 data. The bound is the precision model of
// docs/design.md §6 for one transform: fp32 arithmetic, then one rounding to the storage type.
// Host-only C++ with no dependency beyond the registry, so that nvcc alone builds it on the GPU
// machine. The GPU program (transform_kernels_gpu.cu) and the CPU emulation test
// (tests/codegen/test_kernel_emulation.cpp) each supply a KernelRunner.
#pragma once

#include "nova/kernels/transform_registry.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace nova::test {

enum class Storage { f16, f32, bf16 };
enum class ImageLayout { nchw, nhwc };

inline const char* name_of(Storage s) { return s == Storage::f16 ? "f16" : s == Storage::f32 ? "f32" : "bf16"; }
inline const char* name_of(ImageLayout l) { return l == ImageLayout::nchw ? "nchw" : "nhwc"; }

struct ConvShape {
  int N, C, K, H, W, pad;
};

// Elements past the end of every output buffer; a runner fills them (and the buffer) with NaN
// before the launch, so a write out of bounds shows up as a guard that is no longer NaN.
inline constexpr std::size_t kGuard = 64;

// Runs one kernel on host data and returns what it stored, as float, followed by the kGuard
// elements. Inputs given for fp16 or bf16 storage are exactly representable in it.
class KernelRunner {
 public:
  virtual ~KernelRunner() = default;
  virtual std::vector<float> filter(Storage s, const std::vector<float>& w, int K, int C) = 0;
  virtual std::vector<float> input(ImageLayout l, Storage s, const std::vector<float>& x, const ConvShape& shape) = 0;
  // M in fp32 (product f32) or in the 16-bit storage type s (product == s: the output_m16 kernels).
  virtual std::vector<float> output(ImageLayout l, Storage s, Storage product, const std::vector<float>& M,
                                    const float* bias, int relu, const ConvShape& shape) = 0;
};

struct KernelResult {
  std::string kernel;  // the kernel's name, e.g. input_transform_nhwc_f16
  int cases = 0;
  double max_rel_error = 0;          // max |got - want| / max |want| over each case
  double bound_use = 0;              // max |got - want| / bound: at most 1 inside the model
  long long non_finite = 0;          // inf or NaN values stored
  long long expected_overflow = 0;   // ... where the exact value itself rounds to inf in fp16
  long long guard_writes = 0;        // writes past the end of the buffer
  bool pass() const { return cases > 0 && bound_use <= 1.0 && non_finite == expected_overflow && guard_writes == 0; }
};

// Round to nearest even at fp16 precision (normal and subnormal), inf beyond its range.
inline float round_to_half(float v) {
  if (!std::isfinite(v) || v == 0.0f) return v;
  const float a = std::fabs(v);
  if (a >= 65520.0f) return std::copysign(std::numeric_limits<float>::infinity(), v);
  int e = 0;
  std::frexp(a, &e);                                         // a = f 2^e, f in [0.5, 1)
  const float quantum = std::ldexp(1.0f, std::max(e - 1, -14) - 10);  // fp16 spacing at a
  return std::copysign(std::nearbyint(a / quantum) * quantum, v);
}

// Round to nearest even at bf16 precision (8 significant bits), for the magnitudes the checks
// draw (uniform in [-1, 1], far from bf16's range limits).
inline float round_to_bf16(float v) {
  if (!std::isfinite(v) || v == 0.0f) return v;
  int e = 0;
  std::frexp(std::fabs(v), &e);
  const float quantum = std::ldexp(1.0f, std::max(e - 1, -126) - 7);  // bf16 spacing at |v|
  return std::copysign(std::nearbyint(std::fabs(v) / quantum) * quantum, v);
}

// f(T{}) for T the element type of storage s, the runner naming its fp16 and bf16 types.
template <typename Half, typename Bf16, class F>
auto with_storage_type(Storage s, F&& f) {
  switch (s) {
    case Storage::f16: return f(Half{});
    case Storage::bf16: return f(Bf16{});
    case Storage::f32: break;
  }
  return f(float{});
}

// v as storage type s holds it.
inline float stored_value(Storage s, float v) {
  switch (s) {
    case Storage::f16: return round_to_half(v);
    case Storage::bf16: return round_to_bf16(v);
    case Storage::f32: break;
  }
  return v;
}

namespace detail {

inline std::vector<float> random_data(std::size_t count, Storage s, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = stored_value(s, u(rng));
  return v;
}

// |L| |X| |L|^T: the magnitude every rounding error of L X L^T is relative to. X is k x k.
inline std::vector<double> abs_sandwich(const double* l, int rows, int k, const std::vector<double>& x) {
  std::vector<double> t(static_cast<std::size_t>(rows * k), 0.0), out(static_cast<std::size_t>(rows * rows), 0.0);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < k; ++j)
      for (int p = 0; p < k; ++p) t[i * k + j] += std::fabs(l[i * k + p]) * std::fabs(x[p * k + j]);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < rows; ++j)
      for (int p = 0; p < k; ++p) out[i * rows + j] += t[i * k + p] * std::fabs(l[j * k + p]);
  return out;
}

// The exact (FP64) values a kernel should store, and for each the magnitude of its fp32 error.
struct Expected {
  std::vector<double> value, magnitude;
  explicit Expected(std::size_t n) : value(n, 0.0), magnitude(n, 0.0) {}
};

inline void compare(const std::vector<float>& got, const Expected& want, Storage s, int n, KernelResult& r) {
  // fp32 arithmetic of two passes of at most n terms, plus the rounded constants: gamma |.|.
  const double gamma = (2.0 * n + 4.0) * std::ldexp(1.0, -24);
  const double unit = std::ldexp(1.0, s == Storage::f16 ? -11 : s == Storage::bf16 ? -8 : -24);
  const double tiny = s == Storage::f16 ? std::ldexp(1.0, -25) : 0.0;  // half the fp16 subnormal step
  double max_want = 0;
  for (double w : want.value) max_want = std::max(max_want, std::fabs(w));
  const std::size_t size = want.value.size();
  for (std::size_t i = 0; i < size; ++i) {
    const double w = want.value[i], arithmetic = gamma * want.magnitude[i];
    const bool may_overflow = s == Storage::f16 && std::fabs(w) + arithmetic >= 65520.0;
    const double g = got[i];
    if (!std::isfinite(g)) {
      ++r.non_finite;
      if (may_overflow && std::isinf(g) && (g > 0) == (w > 0)) ++r.expected_overflow;
      continue;
    }
    if (may_overflow) continue;  // rounded to 65504 instead of inf: also correct
    // The fp32 result lies within `arithmetic` of w; storing rounds it by at most unit * |result|.
    const double err = std::fabs(g - w), bound = unit * (std::fabs(w) + arithmetic) + tiny + arithmetic;
    if (err > 0) r.bound_use = std::max(r.bound_use, bound > 0 ? err / bound : std::numeric_limits<double>::infinity());
    if (max_want > 0) r.max_rel_error = std::max(r.max_rel_error, err / max_want);
  }
  for (std::size_t i = size; i < got.size(); ++i)
    if (!std::isnan(got[i])) ++r.guard_writes;
  if (got.size() != size + kGuard) r.guard_writes += static_cast<long long>(kGuard);  // runner broke the contract
  ++r.cases;
}

inline long long out_size(const ConvShape& s, int r) {
  return static_cast<long long>(s.H + 2 * s.pad - r + 1) * (s.W + 2 * s.pad - r + 1);
}

inline long long tile_count(const ConvShape& s, int m, int r) {
  const int tiles_h = (s.H + 2 * s.pad - r + 1 + m - 1) / m, tiles_w = (s.W + 2 * s.pad - r + 1 + m - 1) / m;
  return static_cast<long long>(s.N) * tiles_h * tiles_w;
}

inline Expected expected_filter(const kernels::TransformEntry& e, const std::vector<float>& w, int K, int C) {
  const int r = e.r, nn = e.n * e.n;
  const long long filters = static_cast<long long>(K) * C;
  Expected want(static_cast<std::size_t>(nn * filters));
  std::vector<double> g(static_cast<std::size_t>(r * r)), u(static_cast<std::size_t>(nn));
  for (long long f = 0; f < filters; ++f) {
    for (int i = 0; i < r * r; ++i) g[i] = w[f * r * r + i];
    e.filter_2d_f64(g.data(), u.data());
    const std::vector<double> mag = abs_sandwich(e.G, e.n, r, g);
    for (int xi = 0; xi < nn; ++xi) {
      want.value[xi * filters + f] = u[xi];
      want.magnitude[xi * filters + f] = mag[xi];
    }
  }
  return want;
}

inline long long pixel(ImageLayout l, int channels, int height, int width, int image, int c, int h, int w) {
  return l == ImageLayout::nchw ? ((static_cast<long long>(image) * channels + c) * height + h) * width + w
                                : ((static_cast<long long>(image) * height + h) * width + w) * channels + c;
}

inline Expected expected_input(const kernels::TransformEntry& e, ImageLayout l, const std::vector<float>& x,
                               const ConvShape& s) {
  const int m = e.m, n = e.n, nn = n * n;
  const int tiles_w = (s.W + 2 * s.pad - e.r + 1 + m - 1) / m;
  const int tiles_h = (s.H + 2 * s.pad - e.r + 1 + m - 1) / m;
  const long long P = tile_count(s, m, e.r);
  Expected want(static_cast<std::size_t>(nn * s.C * P));
  std::vector<double> d(static_cast<std::size_t>(nn)), v(static_cast<std::size_t>(nn));
  for (long long p = 0; p < P; ++p) {
    const int image = static_cast<int>(p / (tiles_h * tiles_w)), rest = static_cast<int>(p % (tiles_h * tiles_w));
    const int row0 = rest / tiles_w * m - s.pad, col0 = rest % tiles_w * m - s.pad;
    for (int c = 0; c < s.C; ++c) {
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          const int h = row0 + i, w = col0 + j;
          const bool inside = h >= 0 && h < s.H && w >= 0 && w < s.W;
          d[i * n + j] = inside ? x[pixel(l, s.C, s.H, s.W, image, c, h, w)] : 0.0;
        }
      e.input_2d_f64(d.data(), v.data());
      const std::vector<double> mag = abs_sandwich(e.BT, n, n, d);
      for (int xi = 0; xi < nn; ++xi) {  // V [xi][c][p] for NCHW, [xi][p][c] for NHWC
        const long long at = l == ImageLayout::nchw ? (xi * s.C + c) * P + p : (xi * P + p) * s.C + c;
        want.value[at] = v[xi];
        want.magnitude[at] = mag[xi];
      }
    }
  }
  return want;
}

inline Expected expected_output(const kernels::TransformEntry& e, ImageLayout l, const std::vector<float>& M,
                                const float* bias, int relu, const ConvShape& s) {
  const int m = e.m, n = e.n, nn = n * n;
  const int out_h = s.H + 2 * s.pad - e.r + 1, out_w = s.W + 2 * s.pad - e.r + 1;
  const int tiles_h = (out_h + m - 1) / m, tiles_w = (out_w + m - 1) / m;
  const long long P = tile_count(s, m, e.r);
  Expected want(static_cast<std::size_t>(s.N * s.K * out_size(s, e.r)));
  std::vector<double> mm(static_cast<std::size_t>(nn)), y(static_cast<std::size_t>(m * m));
  for (long long p = 0; p < P; ++p) {
    const int image = static_cast<int>(p / (tiles_h * tiles_w)), rest = static_cast<int>(p % (tiles_h * tiles_w));
    const int row0 = rest / tiles_w * m, col0 = rest % tiles_w * m;
    for (int k = 0; k < s.K; ++k) {
      for (int xi = 0; xi < nn; ++xi)  // M [xi][k][p] for NCHW, [xi][p][k] for NHWC
        mm[xi] = M[l == ImageLayout::nchw ? (static_cast<long long>(xi) * s.K + k) * P + p
                                          : (static_cast<long long>(xi) * P + p) * s.K + k];
      e.output_2d_f64(mm.data(), y.data());
      const std::vector<double> mag = abs_sandwich(e.AT, m, n, mm);
      const double b = bias ? bias[k] : 0.0;
      for (int i = 0; i < m && row0 + i < out_h; ++i)
        for (int j = 0; j < m && col0 + j < out_w; ++j) {
          const long long at = pixel(l, s.K, out_h, out_w, image, k, row0 + i, col0 + j);
          const double value = y[i * m + j] + b;
          want.value[at] = relu ? std::max(value, 0.0) : value;  // ReLU never widens an error
          want.magnitude[at] = mag[i * m + j] + std::fabs(b);
        }
    }
  }
  return want;
}

}  // namespace detail

// Every kernel of one transform on every shape; fresh data from `seed` for each case.
inline std::vector<KernelResult> check_transform(const kernels::TransformEntry& e, KernelRunner& run,
                                                 const std::vector<ConvShape>& shapes, std::uint64_t seed) {
  std::vector<KernelResult> results;
  const auto result = [&](const std::string& kernel) -> KernelResult& {
    for (KernelResult& r : results)
      if (r.kernel == kernel) return r;
    results.push_back(KernelResult{kernel});
    return results.back();
  };
  std::mt19937_64 rng(seed);
  const int nn = e.n * e.n;
  for (const ConvShape& s : shapes) {
    const long long P = detail::tile_count(s, e.m, e.r);
    for (Storage st : {Storage::f16, Storage::f32, Storage::bf16}) {
      const std::vector<float> w = detail::random_data(static_cast<std::size_t>(s.K * s.C * e.r * e.r), Storage::f32, rng);
      detail::compare(run.filter(st, w, s.K, s.C), detail::expected_filter(e, w, s.K, s.C), st, e.n,
                      result(std::string("filter_transform_") + name_of(st)));
    }
    for (ImageLayout l : {ImageLayout::nchw, ImageLayout::nhwc}) {
      for (Storage st : {Storage::f16, Storage::f32, Storage::bf16}) {
        const std::string suffix = std::string(name_of(l)) + "_" + name_of(st);
        const std::vector<float> x = detail::random_data(static_cast<std::size_t>(s.N * s.C * s.H * s.W), st, rng);
        detail::compare(run.input(l, st, x, s), detail::expected_input(e, l, x, s), st, e.n,
                        result("input_transform_" + suffix));
        // M in fp32, and (16-bit storage) in the storage type; the output transform runs without and
        // with its epilogue.
        const std::vector<float> bias = detail::random_data(static_cast<std::size_t>(s.K), Storage::f32, rng);
        std::vector<Storage> products = {Storage::f32};
        if (st != Storage::f32) products.push_back(st);
        for (const Storage product : products) {
          const std::vector<float> M = detail::random_data(static_cast<std::size_t>(nn * s.K * P), product, rng);
          const std::string kernel = product == Storage::f32 ? "output_transform_" : "output_transform_m16_";
          for (const bool epilogue : {false, true}) {
            const float* b = epilogue ? bias.data() : nullptr;
            detail::compare(run.output(l, st, product, M, b, epilogue, s),
                            detail::expected_output(e, l, M, b, epilogue, s), st, e.n, result(kernel + suffix));
          }
        }
      }
    }
  }
  return results;
}

inline void print_header(std::FILE* out) {
  std::fprintf(out, "| transform | kernel | cases | max rel err | err / bound | non-finite | of which fp16 overflow | "
                    "guard writes | result |\n|---|---|---|---|---|---|---|---|---|\n");
}

inline void print_row(std::FILE* out, const char* transform, const KernelResult& r) {
  std::fprintf(out, "| %s | %s | %d | %.2e | %.3f | %lld | %lld | %lld | %s |\n", transform, r.kernel.c_str(), r.cases,
               r.max_rel_error, r.bound_use, r.non_finite, r.expected_overflow, r.guard_writes,
               r.pass() ? "PASS" : "FAIL");
}

}  // namespace nova::test
