// The GPU backend's cost model: the predicted time of one forward pass (16-bit storage) with a
// transform on the 3-pass pipeline or in the fused kernel, from which AUTO picks both the path and
// the transform. A linear combination of features of the shape, the transform and the path
// (bytes each stage moves, tensor-core work rounded up to the GEMM's tiles or to the fused
// kernel's waves, transform operations, fixed costs per tile size and layout), times a shape
// correction per path, tile size and layout (exp of a quadratic function of the logs of the sizes:
// how efficiently the kernels run a shape), with coefficients fitted per path (3-pass, mma.sync
// fused, wgmma fused) to graph-replay times of every configuration on 1,900 random shapes and the
// 18 benchmark layer/layout pairs at batch 32 (weighted 30 each) on an H200
// (tools/device/fit_cost_model.py, which computes the same features: keep the two in step; data
// and check in docs/results/cost_model/). On another GPU the waves follow its multiprocessor count
// and shared memory; the rest keeps the H200's rates.
#pragma once

#include "conv_shape.hpp"
#include "nova/kernels/fused_wgmma_kernels.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace nova::runtime {

// tools/device/fit_cost_model.py with the arguments in docs/results/cost_model/fit_pooled.txt's
// first line (its output): the random shapes of seeds 5 to 9 and the benchmark layers, each file
// with the mma.sync coefficients that chose its row splits when it was measured (--chosen-with).
inline constexpr std::array<double, 11> kThreePassCoefficients = {
    6.84699, 0.71356, -0.0426073, 0.448002, 1.25327, 0.0640303, 0.104614, 4.56781, 9.19358, 0, 2.29564};
inline constexpr std::array<double, 11> kFusedCoefficients = {
    5.64721, 1.465, 733.197, 2.03448, 3.28197, 65.6023, 40.5902, 223.073, -0.111526, 0.224362, -7.30497};
inline constexpr std::array<double, 7> kWgmmaFusedCoefficients = {
    7.46762, 0.0354692, 9.69041, 185.649, 3.26832, 74.0265, 0.569691};

enum class CostPath { three_pass = 0, mma = 1, wgmma = 2 };

// The shape correction of one (path, output tile side m, layout): the prediction is multiplied by
// exp(beta . shape_terms) (a test bounds it over the fitted sizes' corners and beyond).
struct ShapeCorrection {
  int path, m, nchw;  // path: a CostPath; nchw: 1 for NCHW, 0 for NHWC
  std::array<double, 28> beta;
};
inline constexpr ShapeCorrection kShapeCorrections[] = {
    {0, 2, 0, {
     -0.0272109, 0.128961, -0.029074, -0.000414381, -0.0121345, -0.0124526, 0.111265, 0.0241943, -0.0385355,
     -0.0283822, 0.0182523, 0.0149181, -0.0362205, 0.0183146, 0.00778364, -0.0151764, -0.014297, 0.00575641,
     0.0103708, -0.00805365, -0.00811405, -0.00273523, -0.00534161, -0.0531856, 0.0210535, 0.00060079, 0.0152208,
     -0.00137069}},
    {0, 2, 1, {
     -0.431993, 0.0739887, -0.0144767, 0.00537852, -0.00101133, 0.00348601, 0.0805929, 0.0233667, -0.0227429,
     -0.0181892, 0.00852453, 0.0222251, -0.0138397, 0.0215605, 0.0031882, -0.0124425, -0.00973666, -0.00337556,
     0.00820501, -0.000918053, -0.00808134, -0.00180136, 0.00546169, -0.0275119, 0.0199107, 0.00689731, 0.0162481,
     -0.0123169}},
    {0, 4, 0, {
     -0.338672, 0.100016, -0.018054, 0.00319725, -0.00157346, -0.00713371, 0.0953282, 0.0152854, -0.0509922,
     -0.0450851, 0.019396, 0.0176529, -0.00610041, 0.0209393, 0.00937496, -0.0291338, -0.0275173, 0.0230449,
     0.0153009, -0.0210488, -0.0218159, 0.0155383, 0.00353842, -0.0216864, 0.0235487, 0.0111064, 0.0150973,
     -0.0196659}},
    {0, 4, 1, {
     -0.777569, 0.0604065, -0.00626419, 0.00329172, 1.56608e-05, 0.0170196, 0.0742545, 0.0166078, -0.0376512,
     -0.0132876, 0.019629, 0.0202426, 0.0121341, 0.0242325, 0.000684954, -0.0268426, -0.0214938, 0.0143543,
     0.0127637, -0.00286766, -0.00972424, 0.00131317, 0.0225657, 0.00176421, 0.0144008, 0.0115476, 0.0191125,
     -0.0315005}},
    {0, 6, 0, {
     -0.658433, 0.0850445, -0.0279696, -0.0187399, -0.0210519, -0.0189607, 0.0525411, 0.0215388, -0.0276306,
     -0.0227151, 0.0260014, 0.0205634, -0.00214965, 0.0202666, 0.00584557, -0.0128001, -0.0134203, 0.00673694,
     0.0193564, -0.00587991, -0.00772184, -0.00305669, 0.0175176, -0.017935, 0.0234539, 0.0214116, 0.02084,
     -0.0272076}},
    {0, 6, 1, {
     -0.978414, 0.0431996, 0.00878661, -0.0181067, -0.0217171, 0.00859913, 0.0313513, 0.0202237, -0.0181239,
     -0.00353313, 0.0328667, 0.0153841, 0.0152789, 0.018117, 0.0034307, -0.0197845, -0.0098648, -0.000338425,
     0.014551, 0.00533273, -0.00115771, -0.00458273, 0.0382598, 0.00457158, 0.00791286, 0.0105745, 0.0302385,
     -0.0361296}},
    {1, 2, 0, {
     -0.266003, 0.0262, -0.0195021, -0.0477534, 0.0197161, 0.0205689, 0.0657727, 0.00534596, -0.00639372,
     -0.00982315, 0.00818321, 0.00497859, 0.00771069, 0.0300614, -0.0312381, -0.0137354, -0.0015419, -0.010835,
     0.0208423, -0.0126111, -0.0138654, 0.0160582, 0.0116441, 0.00697802, 0.00799506, 0.00587195, 0.00889874,
     -0.0145562}},
    {1, 2, 1, {
     0.573214, -0.0297755, -0.00440548, -0.0688028, 0.00438398, 0.0165206, -0.0126528, -0.00932712, 0.00947734,
     -0.0132789, -0.00244079, 0.00356941, 0.009462, -0.0213159, -0.00911893, 0.0221646, 0.0179115, 0.0178332,
     0.0146424, -0.0131583, -0.0179284, 0.00805764, -0.0103368, 0.0138195, -0.0038774, -0.0012887, -0.00923014,
     -0.00857189}},
    {1, 4, 0, {
     -0.153799, 0.037918, -0.0461933, -0.0153303, 0.0160466, 0.0183354, 0.0739171, 0.00718548, -0.0269258,
     -0.0111726, 0.00841662, 0.0243844, 0.0117774, 0.0204094, -0.0193915, -0.0248855, -0.0173755, 0.00656589,
     0.0180704, -0.00928035, -0.00950171, 0.0102744, 0.00837009, 0.00544276, 0.024495, 0.00977501, 0.0124317,
     -0.0285794}},
    {1, 4, 1, {
     0.494742, -0.020577, -0.0412426, -0.0186396, 0.00161924, -0.00163509, -0.0344009, -0.0209829, 0.0120089,
     -0.0099766, 0.0107712, 0.00880886, 0.0176761, -0.0373187, 0.0184185, 0.0134153, 0.0232613, 0.0292247,
     0.00212145, -0.0124813, -0.0134857, -0.006211, 0.00726688, 0.0424403, -0.0142899, -0.0128846, -0.00225516,
     -0.014928}},
    {2, 2, 1, {
     -0.678573, 0.00119156, 0.00793923, 0.0517689, 0.0217933, 0.0264373, 0.0549232, -2.6231e-05, -0.00734213,
     0.00625429, 0.00366967, 0.00348579, 0.0136868, 0.0223105, -0.0124361, -0.00386722, -0.0022879, -0.0056324,
     0.0074625, 0.00224196, 0.00321037, -0.0142009, 0.00131667, 0.014572, 0.00589668, 9.10263e-05, 0.00474178,
     -0.0100089}},
    {2, 4, 1, {
     -0.446852, 0.00626733, 0.00208365, 0.0384813, 0.0122664, 0.00777552, 0.0342261, 0.0030041, -0.00258077,
     0.0103089, 0.00533161, -0.000119304, 0.014456, 0.0181232, -0.00837416, -1.44878e-05, -0.00495224, -0.00277303,
     0.00475066, 0.00311594, 0.00581957, -0.0172456, 0.00315442, 0.0123906, 0.00900308, 0.00515965, 0.0098547,
     -0.0169402}},
};

template <std::size_t size>
double weighted_sum(const std::array<double, size>& features, const std::array<double, size>& coefficients) {
  double sum = 0;
  for (std::size_t i = 0; i < size; ++i) sum += features[i] * coefficients[i];
  return sum;
}

inline int64_t round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

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

// Microseconds of a 3-pass forward of `s` with `t` (the same for every transform of a tile size),
// M stored in `product_bytes` per element (4: fp32; 2: 16-bit, Backend::product_element_bytes).
inline double predicted_three_pass_us(const ConvShape& s, const TransformEntry& t, int product_bytes) {
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
