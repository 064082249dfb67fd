// The GPU backend's cost model: the predicted time of one forward pass (16-bit storage) with a
// transform on the 3-pass pipeline or in the fused kernel, from which AUTO picks both the path and
// the transform. A linear combination of features of the shape, the transform and the path
// (bytes each stage moves, tensor-core work rounded up to the GEMM's tiles or to the fused
// kernel's waves, transform operations, fixed costs per tile size and layout; the byte features
// once more times the GPU's memory slowdown), times a shape correction per path, tile size and
// layout (exp of a quadratic function of the logs of the sizes: how efficiently the kernels run a
// shape, fitted to order the configurations of a shape), times exp of gradient-boosted regression
// trees fitted to what is left (waves, padding, launches, the transform). Fitted per path (3-pass,
// mma.sync fused, wgmma fused) to graph-replay times of every configuration on 14,400 random shapes
// on an H200 (7,800 measured with the v5.17 kernels; 2,400 with v5.20: 1,200 with each fused
// configuration timed on both fused kernels, 1,200 with the wgmma kernel forced; 1,800 with v5.28, 1,200
// of them with C = 64, where the wgmma kernel takes its tensor-core input path; 1,500 with the wgmma kernel's
// groups of 8 on one-wave grids, 300 of them with C = 64; 900 with v5.33's two tables on that path, 600 of them
// with C = 64), 2,700 on an H100 and the 18 benchmark layer/layout pairs (batches 8 and 32 with v5.33, batch 1
// with the groups of 8; each row weighted 30; both fused kernels) by tools/device/fit_cost_model.py, which
// computes the same features (keep the two in step) and writes gpu_cost_fit.inc; data and checks in
// docs/results/cost_model/ and, for this fit, docs/results/tc_two_tables/. On another GPU the waves follow its multiprocessor count and
// shared memory and the bytes its memory bandwidth (clamped to the two fitted GPUs'); the rest keeps
// the Hopper rates.
#pragma once

#include "conv_shape.hpp"
#include "nova/kernels/fused_wgmma_kernels.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace nova::runtime {

// What the cost model needs of the GPU: its multiprocessors (the fused kernels' waves) and its
// peak memory bandwidth in GB/s (2 x memory clock x bus width; 0 where the device does not say).
struct CostDevice {
  int multiprocessors = 0;
  double memory_gbps = 0;
};

// The peak memory bandwidth of the H200 the model takes as its reference (what memory_gbps computes
// there) and of the slowest GPU it was fitted on (an H100 SXM: 2,619 MHz, 5,120 bits), GB/s
// (fit_cost_model.py REFERENCE_GBPS, SLOWEST_GBPS).
inline constexpr double kReferenceMemoryGBps = 4814.3;
inline constexpr double kSlowestMemoryGBps = 3352.3;

// How much longer a byte takes on `d` than on the reference H200, less 1 (0 on an H200, 0.44 on an
// H100), clamped to the fitted GPUs' range; 0 where the bandwidth is unknown.
inline double memory_slowdown(const CostDevice& d) {
  if (d.memory_gbps <= 0) return 0;
  return std::clamp(kReferenceMemoryGBps / d.memory_gbps - 1.0, 0.0, kReferenceMemoryGBps / kSlowestMemoryGBps - 1.0);
}

// A path's features followed by those of them that count bytes (`byte_features`, indices) times
// the memory slowdown: the fit prices a byte on each GPU.
template <std::size_t size, std::size_t bytes>
std::array<double, size + bytes> with_slowdown(const std::array<double, size>& f, const std::array<int, bytes>& byte_features,
                                               double slowdown) {
  std::array<double, size + bytes> out{};
  std::copy(f.begin(), f.end(), out.begin());
  for (std::size_t i = 0; i < bytes; ++i) out[size + i] = f[byte_features[i]] * slowdown;
  return out;
}
inline constexpr std::array<int, 5> kThreePassByteFeatures = {1, 2, 3, 5, 6};
inline constexpr std::array<int, 5> kFusedByteFeatures = {4, 5, 6, 7, 8};
inline constexpr std::array<int, 3> kWgmmaFusedByteFeatures = {2, 5, 6};

enum class CostPath { three_pass = 0, mma = 1, wgmma = 2 };

// The shape correction of one (path, output tile side m, layout): the prediction is multiplied by
// exp(beta . shape_terms) (a test bounds it over the fitted sizes' corners and beyond).
struct ShapeCorrection {
  int path, m, nchw;  // path: a CostPath; nchw: 1 for NCHW, 0 for NHWC
  std::array<double, 28> beta;
};

// A node of the regression trees on the corrected prediction's log residual: an inner node sends
// features whose `feature`th value is at most `value` to `left`, the rest to `right` (indices into
// kCostTreeNodes); a leaf (feature -1) holds its contribution in `value`.
struct CostTreeNode {
  int feature;
  double value;
  int left, right;
};

// The fit (tools/device/fit_cost_model.py --write; its arguments in the file's banner): the
// coefficients of each path (kThreePassCoefficients, kFusedCoefficients, kWgmmaFusedCoefficients),
// kShapeCorrections and the trees (kCostTreeBaseline, kCostTreeRoots, kCostTreeNodes).
#include "gpu_cost_fit.inc"

template <std::size_t size>
double weighted_sum(const std::array<double, size>& features, const std::array<double, size>& coefficients) {
  double sum = 0;
  for (std::size_t i = 0; i < size; ++i) sum += features[i] * coefficients[i];
  return sum;
}

inline int64_t round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

// The tile group of the wgmma kernel's launch for `s` with `t` on `d`, a shape whose groups are 16
// (fused_wg_wave_tiles: 8 where those all fit one wave).
inline int wg_launch_tiles(const ConvShape& s, const TransformEntry& t, const CostDevice& d) {
  return kernels::fused_wg_wave_tiles(kernels::kWgMaxTiles, tile_shape(s, t).tiles, d.multiprocessors);
}

// How many tables of B^T (x) B^T the wgmma kernel's launch (tile groups of `launch_tiles`, wg_launch_tiles, over the
// shape's `tiles`) multiplies the patches of `s` by with `t` on its tensor-core input transform
// (fused_wgmma_kernels.hpp launch_fused_wg_conv, fused_wg_tc_input; x aligned for the copy engine and the layout
// within the shared memory, as on Hopper), in place of running the transform's input_ops; 0 where it runs those.
inline int wg_tc_tables(const ConvShape& s, const TransformEntry& t, const CostDevice& d, int launch_tiles, int64_t tiles) {
  const bool bf16 = s.dtype == NOVA_DTYPE_BF16;
  const int tables = bf16 ? t.kronecker_terms_bf16 : t.kronecker_terms_fp16;
  const bool tc = s.dtype != NOVA_DTYPE_FP32 &&
                  kernels::fused_wg_tc_input(t.n, static_cast<int>(s.c), static_cast<int>(s.k),
                                             s.layout == NOVA_LAYOUT_NCHW ? kernels::Layout::nchw : kernels::Layout::nhwc,
                                             launch_tiles, bf16 ? kernels::Storage::bf16 : kernels::Storage::f16, tables,
                                             tiles, d.multiprocessors);
  return tc ? tables : 0;
}
inline int wg_tc_tables(const ConvShape& s, const TransformEntry& t, const CostDevice& d) {
  return wg_tc_tables(s, t, d, wg_launch_tiles(s, t, d), tile_shape(s, t).tiles);
}

// The tiles of the wgmma kernel's tile groups in that launch: on the tensor-core input path as few, in fours, as keep
// the waves of groups of `launch_tiles` (fused_wg_group_size), elsewhere `launch_tiles`.
inline int wg_group_tiles(const ConvShape& s, const TransformEntry& t, const CostDevice& d, int launch_tiles, int tables) {
  return kernels::fused_wg_group_size(launch_tiles, tile_shape(s, t).tiles, d.multiprocessors, tables > 0);
}
inline int wg_group_tiles(const ConvShape& s, const TransformEntry& t, const CostDevice& d) {
  const int launch_tiles = wg_launch_tiles(s, t, d);
  return wg_group_tiles(s, t, d, launch_tiles, wg_tc_tables(s, t, d, launch_tiles, tile_shape(s, t).tiles));
}

// The correction's terms: 1, the logs of N, C, K, H, W and the tile count, each size clamped to the
// range of the fitted random shapes (N 1-64, C and K 3-1536, H and W 2-256) so that no shape beyond
// them extrapolates further, and the products of every pair of those logs (squares included).
inline std::array<double, 28> shape_terms(const ConvShape& s, const TransformEntry& t) {
  const auto clamp = [](int64_t v, int64_t lo, int64_t hi) { return static_cast<double>(std::clamp(v, lo, hi)); };
  const double N = clamp(s.n, 1, 64), C = clamp(s.c, 3, 1536), K = clamp(s.k, 3, 1536), H = clamp(s.h, 2, 256),
               W = clamp(s.w, 2, 256);
  const double P = N * std::ceil(H / t.m) * std::ceil(W / t.m);
  const std::array<double, 6> logs = {std::log(N), std::log(C), std::log(K), std::log(H), std::log(W), std::log(P)};
  std::array<double, 28> terms{1.0};
  std::size_t i = 1;
  for (const double l : logs) terms[i++] = l;
  for (std::size_t a = 0; a < logs.size(); ++a)
    for (std::size_t b = a; b < logs.size(); ++b) terms[i++] = logs[a] * logs[b];
  return terms;
}

// `linear` times the shape correction of `path` for `s` with `t` (none where no data fitted one).
inline double corrected(double linear, CostPath path, const ConvShape& s, const TransformEntry& t) {
  const int nchw = s.layout == NOVA_LAYOUT_NCHW ? 1 : 0;
  for (const ShapeCorrection& c : kShapeCorrections)
    if (c.path == static_cast<int>(path) && c.m == t.m && c.nchw == nchw) return linear * std::exp(weighted_sum(shape_terms(s, t), c.beta));
  return linear;
}

// What the trees see of a configuration on path `path` (fit_cost_model.py tree_features, in its
// order): the path, tile side and layout; the logs of N, C, K, H, W and the tiles; C and K modulo 16
// and 64; the blocks (`launch`'s on the mma.sync path, the launch's tile groups on the wgmma one, GEMM tiles
// of 128 x 128 on the 3-pass one) in waves over the SMs and the last wave's fill; the transform's
// operations; the memory slowdown; the mma.sync launch (zeros elsewhere); for NCHW images whether the
// 3-pass input transform takes tile pairs and the output stores runs (kernel_table.hpp
// nchw_rows_in_tile_pairs, output_run_length: either changes its stage's speed by up to 2x); the log of
// the corrected prediction.
inline constexpr std::size_t kTreeFeatures = 25;
inline std::array<double, kTreeFeatures> tree_features(const ConvShape& s, const TransformEntry& t, CostPath path,
                                                       const kernels::FusedLaunch& launch, const CostDevice& d,
                                                       double corrected_us) {
  const Tiling tiling = tile_shape(s, t);
  const int64_t C = s.c, K = s.k, P = tiling.tiles, sms = d.multiprocessors;
  const bool nchw = s.layout == NOVA_LAYOUT_NCHW;
  const int run = kernels::output_run_length(t.m, dtype_traits(s.dtype).bytes);
  const bool tile_pairs = nchw && kernels::nchw_rows_in_tile_pairs(t.n, tiling.tiles_w, s.w);
  const bool output_runs = nchw && run > 1 && s.w_out % run == 0;
  const auto ceil_div = [](int64_t a, int64_t b) { return static_cast<double>((a + b - 1) / b); };
  const bool mma = path == CostPath::mma;
  double waves = 0;
  if (mma)
    waves = static_cast<double>(kernels::fused_blocks(P, static_cast<int>(K), launch)) /
            static_cast<double>(sms * kernels::fused_blocks_per_sm(launch.k_blocks, launch.chunked));
  else if (path == CostPath::wgmma)
    waves = ceil_div(P, wg_group_tiles(s, t, d)) / static_cast<double>(sms);
  else
    waves = ceil_div(P, 128) * ceil_div(K, 128) / static_cast<double>(sms);
  return {static_cast<double>(path), static_cast<double>(t.m), nchw ? 1.0 : 0.0,
          std::log(static_cast<double>(s.n)), std::log(static_cast<double>(C)), std::log(static_cast<double>(K)),
          std::log(static_cast<double>(s.h)), std::log(static_cast<double>(s.w)), std::log(static_cast<double>(P)),
          static_cast<double>(C % 16), static_cast<double>(K % 16), static_cast<double>(C % 64), static_cast<double>(K % 64),
          waves, waves - std::floor(waves), static_cast<double>(t.input_ops), static_cast<double>(t.output_ops),
          memory_slowdown(d), mma ? launch.tile_groups : 0.0, mma ? launch.k_blocks : 0.0,
          mma && launch.chunked ? 1.0 : 0.0, mma ? launch.row_split : 0.0, tile_pairs ? 1.0 : 0.0, output_runs ? 1.0 : 0.0,
          std::log(std::max(corrected_us, 1e-3))};
}

// The trees' sum for `f`: the log of the factor they put on the corrected prediction.
inline double tree_residual(const std::array<double, kTreeFeatures>& f) {
  double sum = kCostTreeBaseline;
  for (const int root : kCostTreeRoots) {
    int at = root;
    while (kCostTreeNodes[at].feature >= 0) {
      const CostTreeNode& node = kCostTreeNodes[at];
      at = f[node.feature] <= node.value ? node.left : node.right;
    }
    sum += kCostTreeNodes[at].value;
  }
  return sum;
}

// The corrected prediction `corrected_us` of a configuration times the trees' factor.
inline double with_trees(double corrected_us, const ConvShape& s, const TransformEntry& t, CostPath path,
                         const kernels::FusedLaunch& launch, const CostDevice& d) {
  const std::array<double, kTreeFeatures> f = tree_features(s, t, path, launch, d, corrected_us);
  return std::exp(f.back() + tree_residual(f));
}

// Microseconds of a 3-pass forward of `s` with `t` on `d` (the same for every transform of a tile
// size), M stored in `product_bytes` per element (4: fp32; 2: 16-bit, Backend::product_element_bytes).
inline double predicted_three_pass_us(const ConvShape& s, const TransformEntry& t, int product_bytes, const CostDevice& d) {
  const Tiling tiling = tile_shape(s, t);
  const double nn = double{1} * t.n * t.n, P = static_cast<double>(tiling.tiles), C = static_cast<double>(s.c),
               K = static_cast<double>(s.k), nchw = s.layout == NOVA_LAYOUT_NCHW ? 1.0 : 0.0;
  const double x = 2.0 * static_cast<double>(s.input_elements()), y = 2.0 * static_cast<double>(s.output_elements());
  const double V = 2 * nn * P * C, U = 2 * nn * K * C, M = product_bytes * nn * P * K;
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
  const double us = corrected(weighted_sum(with_slowdown(f, kThreePassByteFeatures, memory_slowdown(d)), kThreePassCoefficients),
                              CostPath::three_pass, s, t);
  return with_trees(us, s, t, CostPath::three_pass, {}, d);
}

// The linear part of the mma.sync fused kernel's time for `s` with `t` launched as `launch` on `d`:
// its work counted per SM, in whole waves of blocks.
inline double linear_fused_us(const ConvShape& s, const TransformEntry& t, const kernels::FusedLaunch& launch,
                              const CostDevice& d) {
  const int64_t multiprocessors = d.multiprocessors;
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
  return weighted_sum(with_slowdown(f, kFusedByteFeatures, memory_slowdown(d)), kFusedCoefficients);
}

// Microseconds of that forward: the linear part times the shape correction and the trees' factor.
inline double predicted_fused_us(const ConvShape& s, const TransformEntry& t, const kernels::FusedLaunch& launch,
                                 const CostDevice& d) {
  return with_trees(corrected(linear_fused_us(s, t, launch, d), CostPath::mma, s, t), s, t, CostPath::mma, launch, d);
}

// The mma.sync kernel's launch for `s` with `t`: of its row splits (fused_split_launch: 1, 2, 4, 8,
// at most about one warp a domain row), the one predicted fastest by the linear part (the shape
// correction is the same factor for every split of a shape; the trees, which see the split, are
// fitted to the launches this chose). Splits pay where the grid leaves SMs idle (small batches):
// measured on the H200 in docs/performance.md, "Fused v4.2".
inline kernels::FusedLaunch fastest_fused_launch(const ConvShape& s, const TransformEntry& t, int shared_limit,
                                                 const CostDevice& d) {
  const int C = static_cast<int>(s.c), K = static_cast<int>(s.k);
  kernels::FusedLaunch best = kernels::fused_split_launch(t.n, t.m, C, K, 1, shared_limit);
  if (best.tile_groups == 0) return best;
  double best_us = linear_fused_us(s, t, best, d);
  for (int split = 2; split <= kernels::kFusedWarps && split / 2 < t.n; split *= 2) {
    const kernels::FusedLaunch l = kernels::fused_split_launch(t.n, t.m, C, K, split, shared_limit);
    if (l.row_split != split) break;  // the partial outputs do not fit
    if (const double us = linear_fused_us(s, t, l, d); us < best_us) best = l, best_us = us;
  }
  return best;
}

// Microseconds of the wgmma fused kernel's forward of `s` with `t` (a shape whose tile group is 16) on `d`:
// the work of one SM's tile groups of the launch (wg_group_tiles) on the persistent grid (the producers'
// transforms, or their products on the tensor-core path, and patch loads, the consumer's stages and fold,
// the staged outputs) and the bytes of x and y.
inline double predicted_wg_fused_us(const ConvShape& s, const TransformEntry& t, const CostDevice& d) {
  const int64_t multiprocessors = d.multiprocessors;
  const Tiling tiling = tile_shape(s, t);
  const double nn = double{1} * t.n * t.n, m2 = double{1} * t.m * t.m;
  const double cp = kernels::fused_padded_channels(static_cast<int>(s.c)),
               blocks_k = static_cast<double>(kernels::fused_wg_padded_outputs(static_cast<int>(s.k)) / kernels::kWgRows);
  const int launch_tiles = wg_launch_tiles(s, t, d);
  const int tables = wg_tc_tables(s, t, d, launch_tiles, tiling.tiles);
  const int group_tiles = wg_group_tiles(s, t, d, launch_tiles, tables);
  const int64_t tile_groups = (tiling.tiles + group_tiles - 1) / group_tiles;
  // An SM's tile groups, and their tiles.
  const double groups = static_cast<double>((tile_groups + multiprocessors - 1) / multiprocessors), tiles = groups * group_tiles;
  const double io = 2.0 * static_cast<double>(s.input_elements() + s.output_elements());
  const std::array<double, 9> f = {1.0,
                                   tables ? 0.0 : tiles * cp * t.input_ops / 1e6,
                                   tiles * nn * cp * 2 / 1e6,
                                   groups * blocks_k * t.n * cp / 16 / 1e3,
                                   tiles * blocks_k * 64 * t.output_ops / 1e6,
                                   tiles * blocks_k * 64 * m2 * 2 / 1e6,
                                   io / 1e6,
                                   tables ? tiles * cp / 1e3 : 0.0,
                                   tables == 2 ? tiles * cp / 1e3 : 0.0};
  const double us = corrected(weighted_sum(with_slowdown(f, kWgmmaFusedByteFeatures, memory_slowdown(d)), kWgmmaFusedCoefficients),
                              CostPath::wgmma, s, t);
  return with_trees(us, s, t, CostPath::wgmma, {}, d);
}

// Where the runtime runs the wgmma fused kernel rather than the mma.sync one, on a device that has
// it: where it takes tile groups of 16 (with 8 it was measured slower, docs/performance.md "Fused v5")
// and this model predicts it faster than the mma.sync kernel's fastest launch, or that one cannot run.
inline bool fused_runs_wgmma(const ConvShape& s, const TransformEntry& t, int shared_limit, const CostDevice& d) {
  if (kernels::fused_wg_tiles(t.n, t.m, static_cast<int>(s.c), static_cast<int>(s.k), shared_limit) != kernels::kWgMaxTiles)
    return false;
  const kernels::FusedLaunch launch = fastest_fused_launch(s, t, shared_limit, d);
  return launch.tile_groups == 0 || predicted_wg_fused_us(s, t, d) < predicted_fused_us(s, t, launch, d);
}

}  // namespace nova::runtime
