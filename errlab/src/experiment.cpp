#include "nova/errlab/experiment.hpp"

#include "random.hpp"
#include "vector_clones.hpp"
#include "nova/errlab/tensor_storage.hpp"

#include "nova/exact/rational.hpp"
#include "nova/exact/enum_names.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace nova::errlab {
namespace {

using exact::InputError;

// A transform matrix rounded to its storage type, kept as the list of non-zero entries of each
// row: zero terms are skipped, as in the generated kernels (adding an exact zero never rounds).
struct CoefficientMatrix {
  int rows = 0;
  int cols = 0;
  std::vector<std::vector<std::pair<int, double>>> nonzeros;  // per row: (column, value)
};

// Exact rational -> double -> storage format: the double step could only change the result for an
// entry within 2^-53 (relative) of a tie of the narrower format.
CoefficientMatrix round_matrix(const exact::RationalMatrix& exact, StorageType type) {
  CoefficientMatrix out{static_cast<int>(exact.rows()), static_cast<int>(exact.cols()), {}};
  std::vector<double> values(exact.rows() * exact.cols());
  for (std::size_t i = 0; i < exact.rows(); ++i)
    for (std::size_t j = 0; j < exact.cols(); ++j) values[i * exact.cols() + j] = exact::to_double(exact(i, j));
  store(type, TensorView{values.data(), 1, out.rows, out.cols});  // int8 "channel" = matrix row
  out.nonzeros.resize(exact.rows());
  for (int i = 0; i < out.rows; ++i)
    for (int j = 0; j < out.cols; ++j)
      if (const double v = values[static_cast<std::size_t>(i * out.cols + j)]; v != 0) out.nonzeros[static_cast<std::size_t>(i)].emplace_back(j, v);
  return out;
}

// Positions of a batch processed together by apply_2d, so its scratch stays in the L1/L2 cache.
constexpr int kChunk = 256;

// out = L X L^T for every tile X of the batch. Layouts: in [cols][cols][batch], out
// [rows][rows][batch]; each multiply-add is computed in double and rounded once to the compute
// format (a fused multiply-add), the first one starting from an exact zero.
template <class Round>
NOVA_ERRLAB_VECTOR_CLONES void apply_2d(const CoefficientMatrix& L, const double* in, double* out, int batch, double* scratch, Round round) {
  const int rows = L.rows, cols = L.cols;
  for (int b0 = 0; b0 < batch; b0 += kChunk) {
    const int len = std::min(kChunk, batch - b0);
    for (int p = 0; p < rows; ++p)
      for (int y = 0; y < cols; ++y) {
        double* t = scratch + (p * cols + y) * kChunk;
        std::fill(t, t + len, 0.0);
        for (const auto& [x, l] : L.nonzeros[static_cast<std::size_t>(p)]) {
          const double* s = in + static_cast<std::ptrdiff_t>(x * cols + y) * batch + b0;
          for (int i = 0; i < len; ++i) t[i] = round(t[i] + l * s[i]);
        }
      }
    for (int p = 0; p < rows; ++p)
      for (int q = 0; q < rows; ++q) {
        double* o = out + static_cast<std::ptrdiff_t>(p * rows + q) * batch + b0;
        std::fill(o, o + len, 0.0);
        for (const auto& [y, l] : L.nonzeros[static_cast<std::size_t>(q)]) {
          const double* t = scratch + (p * cols + y) * kChunk;
          for (int i = 0; i < len; ++i) o[i] = round(o[i] + l * t[i]);
        }
      }
  }
}

// M[pq][k][t] = sum_c U[pq][k][c] V[pq][c][t], every multiply-add rounded to the accumulator.
template <class Round>
NOVA_ERRLAB_VECTOR_CLONES void channel_sum(const double* U, const double* V, double* M, int positions_nn, int K, int C, int P, Round round) {
  for (int pq = 0; pq < positions_nn; ++pq)
    for (int k = 0; k < K; ++k) {
      double* m = M + (static_cast<std::ptrdiff_t>(pq) * K + k) * P;
      const double* u = U + (static_cast<std::ptrdiff_t>(pq) * K + k) * C;
      std::fill(m, m + P, 0.0);
      for (int c = 0; c < C; ++c) {
        const double uc = u[c];
        const double* v = V + (static_cast<std::ptrdiff_t>(pq) * C + c) * P;
        for (int t = 0; t < P; ++t) m[t] = round(m[t] + uc * v[t]);
      }
    }
}

struct ReferenceShape {
  int m, r, K, C, P;
};

// Four doubles (GCC/Clang vector extension): one AVX2 register, or two SSE2 registers in the
// baseline clone. Explicit vectors keep the reference's accumulators in registers.
using Vec4 = double __attribute__((vector_size(32)));
static_assert(kPositionBlock == 8, "reference_block holds a position block in two Vec4");

// Rows output channels from k and kPositionBlock positions from t0 of ref[ij][.][.], summed over
// the r^2 taps and C input channels in registers before a single store.
template <int Rows>
[[gnu::always_inline]] inline void reference_block(const double* g, const double* d, double* ref, const ReferenceShape& s,
                                                   int i, int j, int k, int t0) {
  const int n = s.m + s.r - 1;
  Vec4 acc[Rows][2] = {};
  for (int u = 0; u < s.r; ++u)
    for (int v = 0; v < s.r; ++v) {
      const double* w = g + (static_cast<std::ptrdiff_t>(u * s.r + v) * s.K + k) * s.C;
      const double* x = d + static_cast<std::ptrdiff_t>((i + u) * n + (j + v)) * s.C * s.P + t0;
      for (int c = 0; c < s.C; ++c, x += s.P) {
        Vec4 x0, x1;
        std::memcpy(&x0, x, sizeof x0);
        std::memcpy(&x1, x + 4, sizeof x1);
        for (int row = 0; row < Rows; ++row) {
          const double wc = w[row * s.C + c];
          acc[row][0] += wc * x0;
          acc[row][1] += wc * x1;
        }
      }
    }
  double* out = ref + (static_cast<std::ptrdiff_t>(i * s.m + j) * s.K + k) * s.P + t0;
  for (int row = 0; row < Rows; ++row) std::memcpy(out + row * s.P, acc[row], sizeof acc[row]);
}

// FP64 direct 2D correlation: ref[ij][k][t] = sum_uv sum_c g[uv][k][c] d[(i+u)(j+v)][c][t].
// Requires P to be a multiple of kPositionBlock (layer_shape guarantees it).
NOVA_ERRLAB_VECTOR_CLONES
void direct_reference(const double* g, const double* d, double* ref, const ReferenceShape& s) {
  for (int i = 0; i < s.m; ++i)
    for (int j = 0; j < s.m; ++j)
      for (int t0 = 0; t0 < s.P; t0 += kPositionBlock) {
        int k = 0;
        for (; k + 4 <= s.K; k += 4) reference_block<4>(g, d, ref, s, i, j, k, t0);
        for (; k < s.K; ++k) reference_block<1>(g, d, ref, s, i, j, k, t0);
      }
}

// `scale` already includes He's sqrt(2 / fan_in) for Distribution::he.
void fill(Random& random, Distribution distribution, double scale, std::vector<double>& values) {
  for (double& x : values) {
    switch (distribution) {
      case Distribution::gaussian:
      case Distribution::he: x = scale * random.gaussian(); break;
      case Distribution::uniform: x = scale * (2.0 * random.uniform() - 1.0); break;
      case Distribution::relu: x = scale * std::max(0.0, random.gaussian()); break;
    }
  }
}

// Element counts of a layer instance's buffers, in one place for allocating and for the memory check.
struct LayerSizes {
  std::size_t filters, transformed_filters, inputs, products, outputs, scratch;

  LayerSizes(const exact::TileSize& tile, const ExperimentSpec& spec, int positions) {
    const auto K = static_cast<std::size_t>(spec.filters), C = static_cast<std::size_t>(spec.channels),
               P = static_cast<std::size_t>(positions), m = static_cast<std::size_t>(tile.m),
               r = static_cast<std::size_t>(tile.r), n = static_cast<std::size_t>(tile.n());
    filters = r * r * K * C;
    transformed_filters = n * n * K * C;
    inputs = n * n * C * P;
    products = n * n * K * P;
    outputs = m * m * K * P;
    scratch = n * n * kChunk;
  }
  // g twice (drawn and stored), d and V three times (drawn, stored, transformed), Y and reference.
  std::size_t bytes() const {
    return sizeof(double) * (2 * filters + transformed_filters + 3 * inputs + products + 2 * outputs + scratch);
  }
};

// Per thread; beyond this the run is refused rather than swapping or being killed.
constexpr double kMaxWorkspaceBytes = 2.0 * (1 << 30);

// Everything one thread needs for one layer instance, allocated once (no allocation per layer).
class LayerEmulator {
 public:
  LayerEmulator(const exact::Transform& transform, const PrecisionModel& model, const ExperimentSpec& spec,
                int positions)
      : model_(model),
        spec_(spec),
        m_(transform.tile.m),
        r_(transform.tile.r),
        n_(transform.tile.n()),
        P_(positions),
        AT_(round_matrix(transform.AT, model.matrices)),
        G_(round_matrix(transform.G, model.matrices)),
        BT_(round_matrix(transform.BT, model.matrices)),
        filter_scale_(spec.filter_distribution == Distribution::he
                          ? spec.filter_scale * std::sqrt(2.0 / (spec.channels * r_ * r_))
                          : spec.filter_scale) {
    const LayerSizes sizes(transform.tile, spec, positions);
    filters_.resize(sizes.filters);
    stored_filters_.resize(sizes.filters);
    U_.resize(sizes.transformed_filters);
    inputs_.resize(sizes.inputs);
    stored_inputs_.resize(sizes.inputs);
    V_.resize(sizes.inputs);
    M_.resize(sizes.products);
    Y_.resize(sizes.outputs);
    reference_.resize(sizes.outputs);
    scratch_.resize(sizes.scratch);
  }

  ErrorStats run(long long layer) {
    const int K = spec_.filters, C = spec_.channels;
    Random random(spec_.seed, static_cast<std::uint64_t>(layer));
    fill(random, spec_.filter_distribution, filter_scale_, filters_);
    fill(random, spec_.input_distribution, spec_.input_scale, inputs_);

    stored_filters_ = filters_;
    store(model_.filter, TensorView{stored_filters_.data(), r_ * r_, K, C});
    stored_inputs_ = inputs_;
    store(model_.input, TensorView{stored_inputs_.data(), n_ * n_, C, P_});

    with_rounding(model_.compute, [&](auto round) { apply_2d(G_, stored_filters_.data(), U_.data(), K * C, scratch_.data(), round); });
    with_rounding(input_arithmetic(model_),
                  [&](auto round) { apply_2d(BT_, stored_inputs_.data(), V_.data(), C * P_, scratch_.data(), round); });
    store(model_.transformed_filter, TensorView{U_.data(), n_ * n_, K, C});
    store(model_.transformed_input, TensorView{V_.data(), n_ * n_, C, P_});

    with_rounding(model_.accumulator.format,
                  [&](auto round) { channel_sum(U_.data(), V_.data(), M_.data(), n_ * n_, K, C, P_, round); });
    if (!is_float(model_.accumulator.format)) store(model_.accumulator, TensorView{M_.data(), n_ * n_, K, P_});
    if (model_.product.format != Format::fp64) store(model_.product, TensorView{M_.data(), n_ * n_, K, P_});

    with_rounding(model_.compute, [&](auto round) { apply_2d(AT_, M_.data(), Y_.data(), K * P_, scratch_.data(), round); });
    store(model_.output, TensorView{Y_.data(), m_ * m_, K, P_});

    direct_reference(filters_.data(), inputs_.data(), reference_.data(), {m_, r_, K, C, P_});
    return compare();
  }

 private:
  ErrorStats compare() const {
    ErrorStats s;
    s.tiles = static_cast<long long>(spec_.filters) * P_;
    s.outputs = static_cast<long long>(Y_.size());
    for (const double ref : reference_) s.max_abs_reference = std::max(s.max_abs_reference, std::abs(ref));
    s.scale = s.max_abs_reference > 0 ? std::ldexp(1.0, std::ilogb(s.max_abs_reference)) : 1.0;
    for (std::size_t i = 0; i < Y_.size(); ++i) {
      const double ref = reference_[i];
      // An inf or NaN output is an infinite error: it makes the L2 and max errors inf.
      const double e = std::isfinite(Y_[i]) ? Y_[i] - ref : std::numeric_limits<double>::infinity();
      s.non_finite += !std::isfinite(Y_[i]);
      s.flushed += Y_[i] == 0 && ref != 0;
      s.sum_sq_reference += (ref / s.scale) * (ref / s.scale);
      s.sum_sq_error += (e / s.scale) * (e / s.scale);
      s.max_abs_error = std::max(s.max_abs_error, std::abs(e));
    }
    return s;
  }

  const PrecisionModel& model_;
  const ExperimentSpec& spec_;
  int m_, r_, n_, P_;
  CoefficientMatrix AT_, G_, BT_;
  double filter_scale_;  // standard deviation or half-width of the filter values
  // Layouts (t: tile position, innermost so every loop runs over contiguous positions):
  std::vector<double> filters_, stored_filters_;  // g [r*r][K][C]
  std::vector<double> U_;                         // [n*n][K][C]
  std::vector<double> inputs_, stored_inputs_;    // d [n*n][C][t]
  std::vector<double> V_;                         // [n*n][C][t]
  std::vector<double> M_;                         // [n*n][K][t]
  std::vector<double> Y_, reference_;             // [m*m][K][t]
  std::vector<double> scratch_;                   // apply_2d's intermediate L X
};

}  // namespace

namespace {
constexpr exact::EnumName<Distribution> kDistributionNames[] = {{Distribution::gaussian, "gaussian"},
                                                                   {Distribution::uniform, "uniform"},
                                                                   {Distribution::relu, "relu"},
                                                                   {Distribution::he, "he"}};
}  // namespace

Distribution parse_distribution(std::string_view text) {
  return exact::parse_enum<Distribution>(kDistributionNames, text, "distribution");
}

std::string_view to_string(Distribution distribution) {
  return exact::enum_name<Distribution>(kDistributionNames, distribution);
}

void validate(const ExperimentSpec& spec) {
  auto check_channels = [](int value, const char* option) {
    if (value < 1 || value > kMaxChannels)
      throw InputError(std::string(option) + " must be between 1 and " + std::to_string(kMaxChannels) + ", got " +
                       std::to_string(value));
  };
  check_channels(spec.channels, "--channels");
  check_channels(spec.filters, "--filters");
  if (spec.tiles < 1 || spec.tiles > kMaxTiles)
    throw InputError("--tiles must be between 1 and " + std::to_string(kMaxTiles) + ", got " + std::to_string(spec.tiles));
  if (spec.threads < 0 || spec.threads > kMaxThreads)
    throw InputError("--threads must be between 0 (one per hardware thread) and " + std::to_string(kMaxThreads));
  if (spec.input_distribution == Distribution::he)
    throw InputError("--input-dist: 'he' describes filters (its fan-in is C r^2); use gaussian, uniform or relu");
  for (const auto& [scale, option] : {std::pair{spec.input_scale, "--input-scale"}, std::pair{spec.filter_scale, "--filter-scale"}})
    if (!(scale > 0) || !std::isfinite(scale)) throw InputError(std::string(option) + " must be a positive finite number");
}

long long LayerShape::tiles() const { return layers * positions * filters; }

LayerShape layer_shape(const ExperimentSpec& spec) {
  LayerShape shape;
  shape.filters = spec.filters;
  const long long positions_needed = (spec.tiles + spec.filters - 1) / spec.filters;
  const long long whole_blocks = (positions_needed + kPositionBlock - 1) / kPositionBlock * kPositionBlock;
  shape.positions = static_cast<int>(std::min<long long>(kPositionsPerLayer, whole_blocks));
  shape.layers = (positions_needed + shape.positions - 1) / shape.positions;
  return shape;
}

double ErrorStats::rel_l2_error() const {
  if (sum_sq_reference == 0) return std::numeric_limits<double>::quiet_NaN();
  return std::sqrt(sum_sq_error / sum_sq_reference);
}

void ErrorStats::merge(const ErrorStats& o) {
  tiles += o.tiles;
  outputs += o.outputs;
  non_finite += o.non_finite;
  flushed += o.flushed;
  const double common = std::max(scale, o.scale);
  const auto rescaled = [common](double sum, double from) { return from > 0 ? sum * (from / common) * (from / common) : 0.0; };
  sum_sq_error = rescaled(sum_sq_error, scale) + rescaled(o.sum_sq_error, o.scale);
  sum_sq_reference = rescaled(sum_sq_reference, scale) + rescaled(o.sum_sq_reference, o.scale);
  scale = common;
  max_abs_error = std::max(max_abs_error, o.max_abs_error);
  max_abs_reference = std::max(max_abs_reference, o.max_abs_reference);
}

ErrorStats measure_error(const exact::Transform& transform, const PrecisionModel& model, const ExperimentSpec& spec,
                         const Progress& progress) {
  validate(model);
  validate(spec);
  const LayerShape shape = layer_shape(spec);
  const double per_thread = static_cast<double>(LayerSizes(transform.tile, spec, shape.positions).bytes());
  // The default takes as many hardware threads as the memory limit allows; an explicit count is
  // refused below when it does not fit.
  const long long hardware = std::max(1u, std::thread::hardware_concurrency());
  const long long fitting = std::max(1LL, static_cast<long long>(kMaxTotalWorkspaceBytes / per_thread));
  const int threads = static_cast<int>(std::min(spec.threads > 0 ? spec.threads : std::min(hardware, fitting), shape.layers));

  const auto mib = [](double bytes) { return std::to_string(static_cast<long long>(bytes / (1 << 20))); };
  const std::string tile = "F(" + std::to_string(transform.tile.m) + "," + std::to_string(transform.tile.r) + ")";
  if (per_thread > kMaxWorkspaceBytes)
    throw InputError("a layer instance of " + tile + " with C=" + std::to_string(spec.channels) + ", K=" +
                     std::to_string(spec.filters) + " needs " + mib(per_thread) + " MiB per thread (limit " +
                     mib(kMaxWorkspaceBytes) + " MiB); use fewer --channels or --filters");
  if (per_thread * threads > kMaxTotalWorkspaceBytes)
    throw InputError(std::to_string(threads) + " threads need " + mib(per_thread * threads) + " MiB (" +
                     mib(per_thread) + " MiB each for " + tile + "), more than the limit of " +
                     mib(kMaxTotalWorkspaceBytes) + " MiB; use fewer --threads");

  std::vector<LayerEmulator> emulators;
  emulators.reserve(static_cast<std::size_t>(threads));
  for (int i = 0; i < threads; ++i) emulators.emplace_back(transform, model, spec, shape.positions);

  // Layers are measured a batch at a time and merged in layer order: the same sums whatever the
  // thread count, and memory for one batch of results only.
  const long long batch = std::max<long long>(64, 16LL * threads);
  std::vector<ErrorStats> per_layer(static_cast<std::size_t>(std::min(batch, shape.layers)));
  ErrorStats total;
  for (long long first = 0; first < shape.layers; first += batch) {
    const long long count = std::min(batch, shape.layers - first);
    std::atomic<long long> next{0};
    auto work = [&](LayerEmulator& emulator) {
      for (long long i; (i = next.fetch_add(1)) < count;)
        per_layer[static_cast<std::size_t>(i)] = emulator.run(first + i);
    };
    std::vector<std::thread> pool;
    try {
      for (int i = 1; i < std::min<long long>(threads, count); ++i)
        pool.emplace_back(work, std::ref(emulators[static_cast<std::size_t>(i)]));
    } catch (const std::system_error& e) {
      next = count;  // the started threads take no further layer
      for (auto& t : pool) t.join();
      throw InputError("cannot start " + std::to_string(threads - 1) + " worker threads (" + std::to_string(pool.size()) +
                       " started): " + e.what() + "; use fewer --threads");
    }
    work(emulators.front());
    for (auto& t : pool) t.join();
    for (long long i = 0; i < count; ++i) total.merge(per_layer[static_cast<std::size_t>(i)]);
    if (progress) progress(first + count, shape.layers);
  }
  return total;
}

}  // namespace nova::errlab
