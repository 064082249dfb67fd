// The GPU backend's cost model: the predicted time of one forward pass (16-bit storage) with a
// transform on the 3-pass pipeline or in the fused kernel, from which AUTO picks both the path and
// the transform. A linear combination of features of the shape, the transform and the path
// (bytes each stage moves, tensor-core work rounded up to the GEMM's tiles or to the fused
// kernel's waves, transform operations, fixed costs per tile size and layout; the byte features
// once more times the GPU's memory slowdown), times a shape correction per path, tile size and
// layout (exp of a quadratic function of the logs of the sizes: how efficiently the kernels run a
// shape, fitted to order the configurations of a shape), with coefficients fitted per path (3-pass,
// mma.sync fused, wgmma fused) to graph-replay times of every configuration on 2,100 random shapes
// and the 18 benchmark layer/layout pairs at batch 32 (weighted 30 each) on each of an H200 and an
// H100, and those pairs at batches 1 and 8 (weighted 10) on the H200 (tools/device/fit_cost_model.py,
// which computes the same features: keep the two in step; data and check in
// docs/results/cost_model/pooled_gpus/). On another GPU the waves follow its multiprocessor count and
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

// tools/device/fit_cost_model.py with the arguments in docs/results/cost_model/pooled_gpus/fit.txt's
// first line (its output): the random shapes and benchmark layers measured on an H200 and an H100,
// each file with the mma.sync coefficients that chose its row splits when it was measured
// (--chosen-with).
inline constexpr std::array<double, 16> kThreePassCoefficients = {
    6.91916, 0.388573, -0.00860601, 0.519301, 1.19966, 0.215222, 0.202033, 3.89405, 9.4545, 0, 3.27272, 0.271369, 0.03048, 0.205954, -0.0347069, 0.168281};
inline constexpr std::array<double, 16> kFusedCoefficients = {
    5.57446, 1.59606, 719.009, 1.15753, 2.9497, 50.073, 44.2079, 204.445, -0.0359583, 0.801226, -5.38771, -2.17367, 17.4958, -9.8914, 25.8502, -0.0175298};
inline constexpr std::array<double, 10> kWgmmaFusedCoefficients = {
    8.11462, 1.86237, 18.2538, 192.926, 1.67639, 80.6861, 0.401319, -20.2624, -5.27638, 0.283293};

enum class CostPath { three_pass = 0, mma = 1, wgmma = 2 };

// The shape correction of one (path, output tile side m, layout): the prediction is multiplied by
// exp(beta . shape_terms) (a test bounds it over the fitted sizes' corners and beyond).
struct ShapeCorrection {
  int path, m, nchw;  // path: a CostPath; nchw: 1 for NCHW, 0 for NHWC
  std::array<double, 28> beta;
};
inline constexpr ShapeCorrection kShapeCorrections[] = {
    {0, 2, 0, {
     0.398204, 0.0273715, 0.00403198, 0.0183196, -0.00259635, -0.00708738, 0.0218338, 0.00854346, -0.00752569,
     -0.00310985, 0.0036202, 0.00111607, -0.0114686, 0.00579953, 0.00605752, -0.00254896, -0.00327348, 0.00127894,
     -0.00237572, -0.00310119, 0.00239455, -0.00538904, 0.00546006, -0.0236088, 0.00256245, 0.00134483, 0.00505875,
     0.0034322}},
    {0, 2, 1, {
     0.314618, 0.0255045, 0.0094327, -0.00332676, -0.00358349, -0.00761742, 0.0175952, 0.00544512, -0.0038454,
     -0.0118939, 0.00266975, 0.000474329, -0.0137754, 0.00907731, -0.000855438, -0.00409999, -0.00552742, -0.0054359,
     0.00210501, -0.00333621, -0.0038207, -0.000999314, 0.00259368, -0.0242543, -0.00285687, 0.00361239, 0.00677176,
     0.00108913}},
    {0, 4, 0, {
     0.296946, 0.0151691, -0.00881203, 0.0015453, -0.00154043, -0.00666837, 0.00663155, 0.00211849, -0.0117794,
     -0.00664127, 7.54307e-05, 0.00118835, -0.00696885, 0.00162821, 0.0116444, -0.0071384, -0.00640941, 0.0154275,
     -0.000808061, -0.00611047, -0.00513824, 0.00182594, 0.00299225, -0.0162194, 0.000495272, 0.00450472, -0.000731776,
     0.00482998}},
    {0, 4, 1, {
     -0.0224391, 0.0142608, 0.00375532, -0.00166112, -0.00302296, 0.00285611, 0.0149279, 0.00811266, -0.00222357,
     -0.00746312, 0.00673417, 0.00383707, 0.000515631, 0.00831226, -0.00192379, -0.00723072, -0.00269956, -0.00190335,
     0.00414505, -0.00173159, -0.0061527, 0.00304111, 0.0110943, -0.00817375, 0.00172504, 0.00904487, 0.00866297,
     -0.0146123}},
    {0, 6, 0, {
     0.0177379, 0.00270456, -0.00917056, -0.00647495, -0.000853762, -0.00471412, -0.00401434, -0.000431282, -0.00503797,
     -0.00547231, 0.00207398, -0.00140869, 0.000541525, 0.0002391, 0.00939445, -0.00332112, -0.00217459, 0.0162656,
     0.00415644, -0.00696952, -0.00371031, 0.0019827, 0.00430282, -0.00599526, -0.0030403, 0.00370767, -0.00212216,
     0.00502255}},
    {0, 6, 1, {
     -0.27251, -0.00339052, 0.0176265, -0.0142099, -0.000905542, 0.00529522, 0.00196172, 0.00750145, 0.00216886,
     -0.00471186, 0.00574205, -0.00521036, 0.000868008, 0.00522806, -0.00255996, -0.00571934, 0.00170419, -0.00449253,
     0.00840067, 0.000385328, -0.00632298, 0.00644805, 0.00856984, -0.00403477, -0.00456876, 0.00125266, 0.0101896,
     -0.00741723}},
    {1, 2, 0, {
     0.262494, -0.0274382, 0.0348888, -0.0040211, 0.00594818, 0.00295297, -0.0197092, -0.00161584, 0.0141223,
     0.00670422, -0.00271769, -0.00260936, 0.013635, 0.000286949, -0.0180626, 0.01176, 0.0126665, -0.0158484,
     0.000443326, 0.00462987, 0.00463383, 0.00409534, -0.0015206, 0.0228741, -0.00307985, -0.00397154, -0.000337358,
     -0.00226758}},
    {1, 2, 1, {
     1.59931, -0.0324354, 0.00193025, -0.0314585, 0.002173, 0.0135301, -0.0143353, -0.0175378, -0.0287508,
     -0.00228971, -0.00939487, -0.00502051, 0.0186613, -0.0289159, -0.0142479, 0.014835, 0.0146301, 0.0185172,
     0.00272558, -0.0140643, -0.0112502, 0.00935871, -0.0266823, 0.0210738, -0.0222742, -0.0237878, -0.0201511,
     0.00327373}},
    {1, 4, 0, {
     0.28391, -0.0159323, 0.00587207, -0.00173796, 0.00130553, 0.00860589, -0.00477877, -0.00298492, 0.0122764,
     0.00769131, -0.000796926, -0.000572544, 0.00917102, -0.00256602, -0.0126135, 0.00677142, 0.00568886, -0.0141538,
     -0.000103436, 0.00788338, 0.00519428, 0.00270956, -0.00478441, 0.0180373, 0.000401849, -0.00518881, 0.00143284,
     -0.00132844}},
    {1, 4, 1, {
     1.02747, -0.0341639, -0.00274417, -0.013404, 0.00779112, 0.00656937, -0.0253299, -0.0232458, 0.012354,
     0.0126237, -0.0114837, 9.80758e-06, 0.0090302, -0.0368263, 0.0186142, 0.0213139, 0.0157557, 0.00241648,
     -0.0138179, -0.0028176, 0.00611761, -0.0156698, -0.0228557, 0.0369584, -0.0129842, -0.0167071, -0.0142798,
     0.00286419}},
    {2, 2, 1, {
     0.101031, -0.0118819, -0.00739794, 0.0431558, 0.00877364, -0.00526465, -0.00588919, -0.00590507, -0.000328527,
     0.00714787, -0.00264527, -0.00586189, 0.001203, 0.011979, -0.0114081, -0.00354054, -0.00176727, 0.00342974,
     -0.0011227, 0.0081843, 0.0119789, -0.0170298, 0.0016795, 0.000802763, -0.0111601, -0.00309901, 0.00173539,
     0.00154745}},
    {2, 4, 1, {
     0.304986, 0.00434462, -0.0158486, 0.0190499, -0.0018441, -0.0127026, -0.0100667, 0.00310159, -0.00494312,
     0.00733712, -0.00487709, -0.00314709, -0.0161387, 0.013295, -0.00873572, -0.00231051, -0.00992074, 0.0137928,
     -0.000294046, 0.0063553, 0.00941114, -0.0152998, -0.00353668, -0.0119279, -0.00671175, -0.00089988, 0.00378481,
     0.00320335}},
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
  return corrected(weighted_sum(with_slowdown(f, kThreePassByteFeatures, memory_slowdown(d)), kThreePassCoefficients),
                   CostPath::three_pass, s, t);
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

// Microseconds of that forward: the linear part times the shape correction.
inline double predicted_fused_us(const ConvShape& s, const TransformEntry& t, const kernels::FusedLaunch& launch,
                                 const CostDevice& d) {
  return corrected(linear_fused_us(s, t, launch, d), CostPath::mma, s, t);
}

// The mma.sync kernel's launch for `s` with `t`: of its row splits (fused_split_launch: 1, 2, 4, 8,
// at most about one warp a domain row), the one predicted fastest (by the linear part: the shape
// correction is the same factor for every split of a shape). Splits pay where the grid leaves
// SMs idle (small batches): measured on the H200 in docs/performance.md, "Fused v4.2".
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

// Where the runtime runs the wgmma fused kernel rather than the mma.sync one, on a device that has
// it: NCHW images with tile groups of 16, where it was measured faster (docs/performance.md, "Fused
// v5"; in NHWC and with 8 tiles it is slower).
inline bool fused_runs_wgmma(const ConvShape& s, const TransformEntry& t, int shared_limit) {
  return s.layout == NOVA_LAYOUT_NCHW &&
         kernels::fused_wg_tiles(t.n, t.m, static_cast<int>(s.c), static_cast<int>(s.k), shared_limit) == kernels::kWgMaxTiles;
}

// Microseconds of the wgmma fused kernel's forward of `s` with `t` (tile groups of 16) on `d`: the
// work of one SM's tile groups on the persistent grid (the producers' transforms and patch loads,
// the consumer's stages and fold, the staged outputs) and the bytes of x and y.
inline double predicted_wg_fused_us(const ConvShape& s, const TransformEntry& t, const CostDevice& d) {
  const int64_t multiprocessors = d.multiprocessors;
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
  return corrected(weighted_sum(with_slowdown(f, kWgmmaFusedByteFeatures, memory_slowdown(d)), kWgmmaFusedCoefficients),
                   CostPath::wgmma, s, t);
}

}  // namespace nova::runtime
