// Measures the error of a 2D Winograd convolution layer emulated under a precision model against
// FP64 direct convolution of the same seeded random data.
//
// The work is split into independent "layer instances": each has fresh random filters g[K][C]
// (r x r) and fresh input tiles d[C] (n x n) at up to kPositionsPerLayer tile positions, and
// produces K output tiles (m x m) per position, so a real layer's sharing is modelled: V = B^T d B
// is computed once per input tile and used by all K output channels, U = G g G^T once per filter,
// and M = sum_c U[k][c] . V[c] is accumulated over the C input channels in the accumulator format.
// Per-tensor int8 scales are taken over a layer instance's whole tensor.
#pragma once

#include "nova/exact/cook_toom.hpp"
#include "nova/errlab/precision_model.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace nova::errlab {

// gaussian N(0, scale^2); uniform U[-scale, scale]; relu scale * max(0, N(0, 1)) (post-ReLU
// activations); he (filters only): N(0, scale^2 * 2 / (C r^2)), He initialisation, the magnitude of
// trained convolution weights, which decides whether U = G g G^T reaches fp16's subnormal range.
enum class Distribution { gaussian, uniform, relu, he };

Distribution parse_distribution(std::string_view text);  // "gaussian", "uniform", "relu", "he"
std::string_view to_string(Distribution distribution);

// Tile positions per layer instance: enough to amortise the filter transform and to vectorise the
// inner loops over positions, few enough to keep a layer instance's buffers at a few MB.
inline constexpr int kPositionsPerLayer = 64;
// A layer instance's positions are a multiple of this: the register block of the fp64 reference.
inline constexpr int kPositionBlock = 8;
inline constexpr int kMaxChannels = 512;  // C and K
inline constexpr long long kMaxTiles = 1LL << 32;
inline constexpr int kMaxThreads = 256;

struct ExperimentSpec {
  int channels = 64;        // C: input channels summed by the GEMM
  int filters = 64;         // K: output channels
  long long tiles = 65536;  // output tiles (one m x m block of one output channel); rounded up to whole layers
  std::uint64_t seed = 1;
  int threads = 0;          // 0: one per hardware thread (never more than the layer instances)
  Distribution input_distribution = Distribution::gaussian;
  double input_scale = 1.0;
  Distribution filter_distribution = Distribution::he;
  double filter_scale = 1.0;
};

void validate(const ExperimentSpec& spec);  // throws exact::InputError with the offending option

// The layer instances that cover spec.tiles. They are all whole, so the tiles measured can exceed
// the request by less than one layer instance.
struct LayerShape {
  int positions = 0;  // tile positions per layer instance
  int filters = 0;    // K
  long long layers = 0;
  long long tiles() const;  // layers * positions * filters
};
LayerShape layer_shape(const ExperimentSpec& spec);

struct ErrorStats {
  long long tiles = 0;
  long long outputs = 0;
  long long non_finite = 0;       // outputs that are inf or NaN: each counts as an infinite error
  long long flushed = 0;          // outputs the model returned as 0 where the reference is not (underflow)
  // Sums of squares relative to `scale`, a power of two near the largest |reference|, so that data
  // of any magnitude neither underflows nor overflows when squared (0: nothing summed yet).
  double scale = 0;
  double sum_sq_error = 0;
  double sum_sq_reference = 0;
  double max_abs_error = 0;
  double max_abs_reference = 0;

  // sqrt(sum_sq_error / sum_sq_reference); NaN when the reference is identically zero (the data
  // vanished: no error can be measured), inf when an output is not finite.
  double rel_l2_error() const;
  void merge(const ErrorStats& other);
};

// Deterministic for a given spec.seed: every layer instance draws from its own stream, and the
// per-layer results are combined in layer order whatever the thread count. Memory is bounded: the
// threads' buffers are estimated first and refused (InputError) beyond kMaxTotalWorkspaceBytes,
// and layer results are merged in batches as they finish. `progress`, when given, is called from
// the calling thread with (layer instances done, total) after every batch.
// `transform` must satisfy the Cook-Toom identity (read_config + verify_config, or build_transform).
inline constexpr double kMaxTotalWorkspaceBytes = 4.0 * (1 << 30);
using Progress = std::function<void(long long done, long long total)>;
ErrorStats measure_error(const exact::Transform& transform, const PrecisionModel& model, const ExperimentSpec& spec,
                         const Progress& progress = {});

}  // namespace nova::errlab
