// The generated host transforms (the code the kernels run), through the registry, against the
// exact matrices of each JSON applied in FP64, and a CPU Winograd convolution built from them
// against FP64 direct convolution. The registry is iterated, so every new config is covered.
#include "nova/exact/config_json.hpp"
#include "nova/kernels/transform_registry.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

using nova::kernels::TransformEntry;

namespace {

namespace fs = std::filesystem;
const fs::path kConfigs = fs::path(NOVA_SOURCE_DIR) / "configs";

struct Matrix {
  std::size_t rows = 0, cols = 0;
  std::vector<double> a;
  double operator()(std::size_t i, std::size_t j) const { return a[i * cols + j]; }
};

Matrix to_double(const nova::exact::RationalMatrix& m) {
  Matrix out{m.rows(), m.cols(), {}};
  for (std::size_t i = 0; i < m.rows(); ++i)
    for (std::size_t j = 0; j < m.cols(); ++j) out.a.push_back(nova::exact::to_double(m(i, j)));
  return out;
}

// L X L^T for X (row-major, L.cols x L.cols), in FP64.
std::vector<double> sandwich(const Matrix& l, const std::vector<double>& x) {
  const std::size_t k = l.cols;
  std::vector<double> t(l.rows * k, 0.0), out(l.rows * l.rows, 0.0);
  for (std::size_t i = 0; i < l.rows; ++i)
    for (std::size_t j = 0; j < k; ++j)
      for (std::size_t p = 0; p < k; ++p) t[i * k + j] += l(i, p) * x[p * k + j];
  for (std::size_t i = 0; i < l.rows; ++i)
    for (std::size_t j = 0; j < l.rows; ++j)
      for (std::size_t p = 0; p < k; ++p) out[i * l.rows + j] += t[i * k + p] * l(j, p);
  return out;
}

std::vector<double> random_values(std::size_t count, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(count);
  for (double& x : v) x = u(rng);
  return v;
}

template <typename T>
double relative_error(const std::vector<T>& got, const std::vector<double>& want) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
    norm += want[i] * want[i];
  }
  return std::sqrt(diff / norm);
}

template <typename T, typename Fn>
std::vector<T> apply(Fn fn, const std::vector<double>& in, std::size_t out_size) {
  const std::vector<T> x(in.begin(), in.end());
  std::vector<T> y(out_size);
  fn(x.data(), y.data());
  return y;
}

nova::exact::Config config_of(const TransformEntry& e) {
  return nova::exact::read_config(kConfigs / (std::string(e.name) + ".json"));
}

}  // namespace

TEST_CASE("the registry lists exactly the configs in configs/, with their sizes and points") {
  std::set<std::string> files, registered;
  for (const auto& f : fs::directory_iterator(kConfigs))
    if (f.path().extension() == ".json") files.insert(nova::exact::read_config(f.path()).name);
  for (const TransformEntry& e : nova::kernels::transform_registry()) {
    registered.insert(e.name);
    const auto c = config_of(e);
    CHECK(e.m == c.transform.tile.m);
    CHECK(e.r == c.transform.tile.r);
    CHECK(e.n == c.transform.tile.n());
    CHECK(std::string(e.scaling) == std::string(nova::exact::scaling_name(c.transform.scaling)));
    CHECK(e.amp2d == c.metrics.amp2d);
    CHECK(nova::kernels::find_transform(e.name) == &e);
    // The double tables are the exact matrices, rounded once.
    for (const auto& [table, exact] : {std::pair{e.AT, &c.transform.AT}, {e.G, &c.transform.G}, {e.BT, &c.transform.BT}})
      CHECK(std::vector<double>(table, table + exact->rows() * exact->cols()) == to_double(*exact).a);
  }
  CHECK(registered == files);  // a config without generated code (or the reverse) fails here
  CHECK(nova::kernels::find_transform("f6x3_nonexistent") == nullptr);
}

TEST_CASE("generated host transforms match the exact matrices applied in FP64") {
  for (const TransformEntry& e : nova::kernels::transform_registry()) {
    DYNAMIC_SECTION(e.name) {
      const auto c = config_of(e);
      const Matrix at = to_double(c.transform.AT), g = to_double(c.transform.G), bt = to_double(c.transform.BT);
      const auto n = static_cast<std::size_t>(e.n), m = static_cast<std::size_t>(e.m), r = static_cast<std::size_t>(e.r);
      std::mt19937_64 rng(11);
      for (int trial = 0; trial < 8; ++trial) {
        const auto d = random_values(n * n, rng), w = random_values(r * r, rng), mm = random_values(n * n, rng);
        const auto v = sandwich(bt, d), u = sandwich(g, w), y = sandwich(at, mm);
        CHECK(relative_error(apply<double>(e.input_2d_f64, d, n * n), v) < 1e-12);
        CHECK(relative_error(apply<double>(e.filter_2d_f64, w, n * n), u) < 1e-12);
        CHECK(relative_error(apply<double>(e.output_2d_f64, mm, m * m), y) < 1e-12);
        // The float instantiation is the same code; fp32 rounding of the inputs and the arithmetic
        // gives about 1e-7 for every shipped config (2.2e-7 at most, standard F(8,3)).
        CHECK(relative_error(apply<float>(e.input_2d_f32, d, n * n), v) < 1e-5);
        CHECK(relative_error(apply<float>(e.filter_2d_f32, w, n * n), u) < 1e-5);
        CHECK(relative_error(apply<float>(e.output_2d_f32, mm, m * m), y) < 1e-5);
      }
    }
  }
}

namespace {

struct ConvShape {
  int images, channels, filters, height, width, pad;
};

// x [N][C][H][W], w [K][C][r][r] -> y [N][K][Hout][Wout], FP64, zero padding.
std::vector<double> direct_convolution(const ConvShape& s, int r, const std::vector<double>& x,
                                       const std::vector<double>& w) {
  const int ho = s.height + 2 * s.pad - r + 1, wo = s.width + 2 * s.pad - r + 1;
  std::vector<double> y(static_cast<std::size_t>(s.images * s.filters * ho * wo), 0.0);
  for (int b = 0; b < s.images; ++b)
    for (int k = 0; k < s.filters; ++k)
      for (int i = 0; i < ho; ++i)
        for (int j = 0; j < wo; ++j) {
          double acc = 0;
          for (int c = 0; c < s.channels; ++c)
            for (int p = 0; p < r; ++p)
              for (int q = 0; q < r; ++q) {
                const int h = i + p - s.pad, v = j + q - s.pad;
                if (h < 0 || h >= s.height || v < 0 || v >= s.width) continue;
                acc += x[((b * s.channels + c) * s.height + h) * s.width + v] * w[((k * s.channels + c) * r + p) * r + q];
              }
          y[((b * s.filters + k) * ho + i) * wo + j] = acc;
        }
  return y;
}

// Winograd F(m, r) through the registry's host transforms: U = G w G^T per filter, V = B^T d B per
// input tile, M = sum_c U . V, Y = A^T M A, border tiles clipped.
std::vector<double> winograd_convolution(const TransformEntry& e, const ConvShape& s, const std::vector<double>& x,
                                         const std::vector<double>& w) {
  const int m = e.m, r = e.r, n = e.n, nn = n * n;
  const int ho = s.height + 2 * s.pad - r + 1, wo = s.width + 2 * s.pad - r + 1;
  const int tiles_h = (ho + m - 1) / m, tiles_w = (wo + m - 1) / m;
  std::vector<double> u(static_cast<std::size_t>(s.filters * s.channels * nn));
  for (int f = 0; f < s.filters * s.channels; ++f) e.filter_2d_f64(&w[f * r * r], &u[f * nn]);

  std::vector<double> y(static_cast<std::size_t>(s.images * s.filters * ho * wo), 0.0);
  std::vector<double> d(nn), v(static_cast<std::size_t>(s.channels * nn)), mm(nn), out(m * m);
  for (int b = 0; b < s.images; ++b)
    for (int th = 0; th < tiles_h; ++th)
      for (int tw = 0; tw < tiles_w; ++tw) {
        for (int c = 0; c < s.channels; ++c) {
          for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
              const int h = th * m + i - s.pad, col = tw * m + j - s.pad;
              const bool inside = h >= 0 && h < s.height && col >= 0 && col < s.width;
              d[i * n + j] = inside ? x[((b * s.channels + c) * s.height + h) * s.width + col] : 0.0;
            }
          e.input_2d_f64(d.data(), &v[c * nn]);
        }
        for (int k = 0; k < s.filters; ++k) {
          std::fill(mm.begin(), mm.end(), 0.0);
          for (int c = 0; c < s.channels; ++c)
            for (int xi = 0; xi < nn; ++xi) mm[xi] += u[(k * s.channels + c) * nn + xi] * v[c * nn + xi];
          e.output_2d_f64(mm.data(), out.data());
          for (int i = 0; i < m && th * m + i < ho; ++i)
            for (int j = 0; j < m && tw * m + j < wo; ++j)
              y[((b * s.filters + k) * ho + th * m + i) * wo + tw * m + j] = out[i * m + j];
        }
      }
  return y;
}

}  // namespace

TEST_CASE("a CPU Winograd convolution from the generated transforms matches FP64 direct convolution") {
  // Odd sizes, so that border tiles are clipped; every padding the runtime accepts.
  const ConvShape shapes[] = {{2, 3, 4, 13, 11, 1}, {1, 5, 2, 9, 16, 0}, {3, 2, 3, 7, 5, 2}};
  for (const TransformEntry& e : nova::kernels::transform_registry()) {
    DYNAMIC_SECTION(e.name) {
      std::mt19937_64 rng(5);
      for (const ConvShape& s : shapes) {
        const auto x = random_values(static_cast<std::size_t>(s.images * s.channels * s.height * s.width), rng);
        const auto w = random_values(static_cast<std::size_t>(s.filters * s.channels * e.r * e.r), rng);
        const auto want = direct_convolution(s, e.r, x, w);
        const double err = relative_error(winograd_convolution(e, s, x, w), want);
        INFO("shape " << s.images << "x" << s.channels << "x" << s.height << "x" << s.width << " K " << s.filters
                      << " pad " << s.pad << ": relative error " << err);
        CHECK(err < 1e-10);
      }
    }
  }
}
