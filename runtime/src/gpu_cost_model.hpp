// The GPU backend's cost model: the predicted time of one forward pass (16-bit storage) with a
// transform on the 3-pass pipeline or in the fused kernel, from which AUTO picks both the path and
// the transform. A linear combination of features of the shape, the transform and the path
// (bytes each stage moves, tensor-core work rounded up to the GEMM's tiles or to the fused
// kernel's waves, transform operations, fixed costs per tile size and layout), times a shape
// correction per path, tile size and layout (exp of a linear function of the logs of the sizes:
// how efficiently the kernels run a shape), with coefficients fitted per path (3-pass, mma.sync
// fused, wgmma fused) to graph-replay times of every configuration on 1,000 random shapes and the
// 18 benchmark layer/layout pairs (weighted 10 each) on an H200 (tools/device/fit_cost_model.py,
// which computes the same features: keep the two in step; data and check in
// docs/results/cost_model/). On another GPU the waves follow its multiprocessor count and
// shared memory; the rest keeps the H200's rates.
#pragma once

#include "conv_shape.hpp"
#include "nova/kernels/fused_wgmma_kernels.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace nova::runtime {

// tools/device/fit_cost_model.py train_split_seed6.csv train_split_seed7.csv train_split_frontier.csv
// --chosen-with train_split_chosen_with.txt --check heldout_split_seed5.csv --cv 5 (in
// docs/results/cost_model/; its output: fit_split.txt):
// 1,000 random shapes and the benchmark layers, measured with the build whose row splits the
// coefficients before these chose (train_split_chosen_with.txt).
inline constexpr std::array<double, 11> kThreePassCoefficients = {
    9.38212, 0.741115, 0.0265927, 0.37315, 1.17866, 0.0421224, 0.138722, 2.9726, 5.92582, 0, 0.467142};
inline constexpr std::array<double, 11> kFusedCoefficients = {
    6.34537, -0.228193, 723.967, 10.3072, 3.21658, 69.4973, 33.3999, 223.576, -0.228036, 1.14906, -6.19097};
inline constexpr std::array<double, 7> kWgmmaFusedCoefficients = {5.92415, 1.95812, 30.224, 176.285,
                                                                  1.54908, 99.377,  0.316804};

enum class CostPath { three_pass = 0, mma = 1, wgmma = 2 };

// The shape correction of one (path, output tile side m, layout): the prediction is multiplied by
// exp(beta . shape_terms) (between 0.59 and 2.4 over the fitted sizes' corners; a test bounds it).
struct ShapeCorrection {
  int path, m, nchw;  // path: a CostPath; nchw: 1 for NCHW, 0 for NHWC
  std::array<double, 7> beta;
};
inline constexpr ShapeCorrection kShapeCorrections[] = {
    {0, 2, 0, {-0.187136, -0.0370782, 0.0355278, 0.0173092, 0.0115425, 0.0224024, 0.0308198}},
    {0, 2, 1, {-0.171924, -0.0197169, 0.0429485, 0.0103926, 0.00370418, 0.0118413, 0.0106995}},
    {0, 4, 0, {-0.330105, -0.0508411, 0.0424358, 0.0421476, -0.00192214, 0.00639592, 0.0468219}},
    {0, 4, 1, {-0.443911, -0.00437599, 0.0539592, 0.0426398, 0.0258855, 0.00853097, 0.0151005}},
    {0, 6, 0, {-0.536153, -0.0203653, 0.0449406, 0.0599525, 0.0142536, 0.0214995, 0.0342729}},
    {0, 6, 1, {-0.718508, 0.0327466, 0.0365347, 0.0770568, 0.0689121, 0.028178, 0.00600811}},
    {1, 2, 0, {-0.0780291, -0.00229052, -0.00991525, -0.000689782, 0.00446511, 0.0238219, 0.0227527}},
    {1, 2, 1, {0.267201, -0.00514609, -0.0154127, -0.0641213, 0.0254383, 0.0146983, 0.020018}},
    {1, 4, 0, {-0.139081, -0.0102197, -0.0421071, 0.0214924, 0.0191521, 0.0349742, 0.0389804}},
    {1, 4, 1, {-0.100913, 0.0175212, -0.0337871, -0.0128762, 0.0766165, 0.0514493, -0.00555604}},
    {2, 2, 1, {-0.0992047, 0.00249552, -0.000615425, 0.00351763, 0.00431991, 6.30231e-05, 0.00999023}},
    {2, 4, 1, {-0.0915306, 0.0157116, 0.00617793, 0.000611058, 0.0171876, 0.0141306, -0.00726771}},
};

template <std::size_t size>
double weighted_sum(const std::array<double, size>& features, const std::array<double, size>& coefficients) {
  double sum = 0;
  for (std::size_t i = 0; i < size; ++i) sum += features[i] * coefficients[i];
  return sum;
}

inline int64_t round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

// The correction's terms: 1 and the logs of N, C, K, H, W and the tile count, each size clamped to
// the range of the fitted random shapes (N 1-64, C and K 3-1536, H and W 2-256), so that no shape
// beyond them extrapolates further.
inline std::array<double, 7> shape_terms(const ConvShape& s, const TransformEntry& t) {
  const auto clamp = [](int64_t v, int64_t lo, int64_t hi) { return static_cast<double>(std::clamp(v, lo, hi)); };
  const double N = clamp(s.n, 1, 64), C = clamp(s.c, 3, 1536), K = clamp(s.k, 3, 1536), H = clamp(s.h, 2, 256),
               W = clamp(s.w, 2, 256);
  const double P = N * std::ceil(H / t.m) * std::ceil(W / t.m);
  return {1.0, std::log(N), std::log(C), std::log(K), std::log(H), std::log(W), std::log(P)};
}

// `linear` times the shape correction of `path` for `s` with `t` (none where no data fitted one).
inline double corrected(double linear, CostPath path, const ConvShape& s, const TransformEntry& t) {
  const int nchw = s.layout == NOVA_LAYOUT_NCHW ? 1 : 0;
  for (const ShapeCorrection& c : kShapeCorrections)
    if (c.path == static_cast<int>(path) && c.m == t.m && c.nchw == nchw) return linear * std::exp(weighted_sum(shape_terms(s, t), c.beta));
  return linear;
}

// Microseconds of a 3-pass forward of `s` with `t` (the same for every transform of a tile size).
inline double predicted_three_pass_us(const ConvShape& s, const TransformEntry& t) {
  const Tiling tiling = tile_shape(s, t);
  const double nn = double{1} * t.n * t.n, P = static_cast<double>(tiling.tiles), C = static_cast<double>(s.c),
               K = static_cast<double>(s.k), nchw = s.layout == NOVA_LAYOUT_NCHW ? 1.0 : 0.0;
  const double x = 2.0 * static_cast<double>(s.input_elements()), y = 2.0 * static_cast<double>(s.output_elements());
  const double V = 2 * nn * P * C, U = 2 * nn * K * C, M = 4 * nn * P * K;
  const double gemm = 2 * nn * static_cast<double>(round_up(tiling.tiles, 128) * round_up(s.c, 32) * round_up(s.k, 64));
  // No transform operations: within a tile size they do not order the 3-pass kernels' times.
  const std::array<double, 11> f = {1.0,
                                    (x + V) / 1e6,
                                    (U + V + M) / 1e6,
                                    (M + y) / 1e6,
                                    gemm / 1e9,
                                    (x + V) / 1e6 * nchw,
                                    (M + y) / 1e6 * nchw,
                                    t.m == 4 ? 1.0 : 0.0,
                                    t.m == 6 ? 1.0 : 0.0,
                                    t.m == 8 ? 1.0 : 0.0,
                                    nchw};
  return corrected(weighted_sum(f, kThreePassCoefficients), CostPath::three_pass, s, t);
}

// The linear part of the mma.sync fused kernel's time for `s` with `t` launched as `launch` on a GPU
// with `multiprocessors` SMs: its work counted per SM, in whole waves of blocks.
inline double linear_fused_us(const ConvShape& s, const TransformEntry& t, const kernels::FusedLaunch& launch,
                              int multiprocessors) {
  const Tiling tiling = tile_shape(s, t);
  const double nn = double{1} * t.n * t.n, nchw = s.layout == NOVA_LAYOUT_NCHW ? 1.0 : 0.0;
  const int64_t cp = kernels::fused_padded_channels(static_cast<int>(s.c)),
                kp = kernels::fused_padded_outputs(static_cast<int>(s.k));
  const int64_t block_tiles = kernels::fused_block_tiles(launch.tile_groups);
  const int64_t k_slice = std::min<int64_t>(int64_t{kernels::fused_k_slice(static_cast<int>(s.k), launch)} * kernels::kFusedBlockK, kp);
  const int64_t per_sm = kernels::fused_blocks_per_sm(launch.k_blocks, launch.chunked);
  const int64_t blocks = kernels::fused_blocks(tiling.tiles, static_cast<int>(s.k), launch);
  const double scale = static_cast<double>((blocks + multiprocessors * per_sm - 1) / (multiprocessors * per_sm) * per_sm);
  const double tiles = scale * static_cast<double>(block_tiles), c = static_cast<double>(cp),
               k = static_cast<double>(k_slice);
  const double patches = tiles * nn * c * 2 / 1e6;
  const double io = 2.0 * static_cast<double>(s.input_elements() + s.output_elements());
  const std::array<double, 11> f = {1.0,
                                    tiles * c * t.input_ops / 1e6,
                                    2 * nn * tiles * c * k / 1e9,
                                    tiles * k * t.output_ops / 1e6,
                                    scale * nn * k * c * 2 / 1e6,
                                    patches,
                                    patches * nchw,
                                    tiles * k * t.m * t.m * 2 / 1e6 * nchw,
                                    io / 1e6,
                                    t.m == 4 ? 1.0 : 0.0,
                                    nchw};
  return weighted_sum(f, kFusedCoefficients);
}

// Microseconds of that forward: the linear part times the shape correction.
inline double predicted_fused_us(const ConvShape& s, const TransformEntry& t, const kernels::FusedLaunch& launch,
                                 int multiprocessors) {
  return corrected(linear_fused_us(s, t, launch, multiprocessors), CostPath::mma, s, t);
}

// The mma.sync kernel's launch for `s` with `t`: of its row splits (fused_split_launch: 1, 2, 4, 8,
// at most about one warp a domain row), the one predicted fastest (by the linear part: the shape
// correction is the same factor for every split of a shape). Splits pay where the grid leaves
// SMs idle (small batches): measured on the H200 in docs/performance.md, "Fused v4.2".
inline kernels::FusedLaunch fastest_fused_launch(const ConvShape& s, const TransformEntry& t, int shared_limit,
                                                 int multiprocessors) {
  const int C = static_cast<int>(s.c), K = static_cast<int>(s.k);
  kernels::FusedLaunch best = kernels::fused_split_launch(t.n, t.m, C, K, 1, shared_limit);
  if (best.tile_groups == 0) return best;
  double best_us = linear_fused_us(s, t, best, multiprocessors);
  for (int split = 2; split <= kernels::kFusedWarps && split / 2 < t.n; split *= 2) {
    const kernels::FusedLaunch l = kernels::fused_split_launch(t.n, t.m, C, K, split, shared_limit);
    if (l.row_split != split) break;  // the partial outputs do not fit
    if (const double us = linear_fused_us(s, t, l, multiprocessors); us < best_us) best = l, best_us = us;
  }
  return best;
}

// Where the runtime runs the wgmma fused kernel rather than the mma.sync one, on a device that has
// it: NCHW images with tile groups of 16, where it was measured faster (docs/performance.md, "Fused
// v5"; in NHWC and with 8 tiles it is slower).
inline bool fused_runs_wgmma(const ConvShape& s, const TransformEntry& t, int shared_limit) {
  return s.layout == NOVA_LAYOUT_NCHW &&
         kernels::fused_wg_tiles(t.n, t.m, static_cast<int>(s.c), static_cast<int>(s.k), shared_limit) == kernels::kWgMaxTiles;
}

// Microseconds of the wgmma fused kernel's forward of `s` with `t` (tile groups of 16) on a GPU with
// `multiprocessors` SMs: the work of one SM's tile groups on the persistent grid (the producers'
// transforms and patch loads, the consumer's stages and fold, the staged outputs) and the bytes of
// x and y.
inline double predicted_wg_fused_us(const ConvShape& s, const TransformEntry& t, int multiprocessors) {
  const Tiling tiling = tile_shape(s, t);
  const double nn = double{1} * t.n * t.n, m2 = double{1} * t.m * t.m;
  const double cp = kernels::fused_padded_channels(static_cast<int>(s.c)),
               blocks_k = static_cast<double>(kernels::fused_wg_padded_outputs(static_cast<int>(s.k)) / kernels::kWgRows);
  const int64_t tile_groups = (tiling.tiles + kernels::kWgMaxTiles - 1) / kernels::kWgMaxTiles;
  const double groups = static_cast<double>((tile_groups + multiprocessors - 1) / multiprocessors);
  const double io = 2.0 * static_cast<double>(s.input_elements() + s.output_elements());
  const std::array<double, 7> f = {1.0,
                                   groups * 16 * cp * t.input_ops / 1e6,
                                   groups * 16 * nn * cp * 2 / 1e6,
                                   groups * blocks_k * t.n * cp / 16 / 1e3,
                                   groups * blocks_k * 64 * 16 * t.output_ops / 1e6,
                                   groups * blocks_k * 64 * 16 * m2 * 2 / 1e6,
                                   io / 1e6};
  return corrected(weighted_sum(f, kWgmmaFusedCoefficients), CostPath::wgmma, s, t);
}

}  // namespace nova::runtime
