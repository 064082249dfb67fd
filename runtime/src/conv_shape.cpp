#include "conv_shape.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>

namespace nova::runtime {
namespace {

// Every tensor the kernels index must stay below 2^31 elements (32-bit indices on the device).
constexpr int64_t kMaxElements = std::numeric_limits<int32_t>::max();

// Whether an enum field a C caller filled holds one of `values`. Read as the int it is stored as:
// loading a C++ enum that holds no enumerator's value is undefined behaviour.
template <class Enum>
bool valid_enum(const Enum& field, std::initializer_list<Enum> values) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized");
  int raw = 0;
  std::memcpy(&raw, &field, sizeof raw);
  for (const Enum v : values)
    if (raw == static_cast<int>(v)) return true;
  return false;
}

bool checked_product(std::initializer_list<int64_t> factors, int64_t& out) {
  int64_t p = 1;
  for (const int64_t f : factors)
    if (__builtin_mul_overflow(p, f, &p)) return false;
  out = p;
  return p <= kMaxElements;
}

// Predicted relative L2 error 0.7 u amp2D (docs/design.md §6) a transform must stay under, per
// storage type, unless the descriptor sets its own (max_error): "auto" takes no other, and a name
// needs allow_inaccurate for any other.
constexpr double kErrorBudgetFp16 = 1e-2;
constexpr double kErrorBudgetFp32 = 1e-5;
// bf16 (u = 2^-8) allows amp2D <= 11.0: F(2,3) and the F(4,3) sets of standard points or searched
// for accuracy, no F(6,3) set (the most accurate predicts 5.6e-2); f4x3_nova and f4x3_kappa (3.1e-2,
// 3.4e-2) need allow_inaccurate or a larger max_error.
constexpr double kErrorBudgetBf16 = 3e-2;

// Indexed by nova_dtype_t.
constexpr DtypeTraits kDtypeTraits[] = {
    {4, 0x1p-24, kErrorBudgetFp32},  // NOVA_DTYPE_FP32
    {2, 0x1p-11, kErrorBudgetFp16},  // NOVA_DTYPE_FP16
    {2, 0x1p-8, kErrorBudgetBf16},   // NOVA_DTYPE_BF16
};
static_assert(NOVA_DTYPE_FP32 == 0 && NOVA_DTYPE_FP16 == 1 && NOVA_DTYPE_BF16 == 2);

}  // namespace

const DtypeTraits& dtype_traits(nova_dtype_t dtype) { return kDtypeTraits[dtype]; }

double predicted_storage_error(const TransformEntry& t, const ConvShape& s, bool narrow_product) {
  return 0.7 * dtype_traits(s.dtype).unit_roundoff * t.amp2d * (narrow_product ? std::sqrt(1.5) : 1.0);
}

bool within_error_budget(const TransformEntry& t, const ConvShape& s) {
  return predicted_storage_error(t, s, false) <= s.error_budget;
}

bool narrow_product_fits(const TransformEntry& t, const ConvShape& s) {
  return s.dtype != NOVA_DTYPE_FP32 && predicted_storage_error(t, s, true) <= s.error_budget;
}

double predicted_error(const TransformEntry& t, const ConvShape& s, bool narrow_product) {
  const double u = dtype_traits(s.dtype).unit_roundoff;
  const double storage = predicted_storage_error(t, s, narrow_product) *
                         (s.dtype == NOVA_DTYPE_FP32 ? std::sqrt(1.0 + static_cast<double>(s.c) / 3.0) : 1.0);
  return std::sqrt(storage * storage + u * u / 3.0);
}

nova_status_t validate_descriptor(const nova_conv_desc_t* desc, ConvShape& s) {
  if (!desc) return NOVA_STATUS_INVALID_ARGUMENT;
  if (desc->n <= 0 || desc->c <= 0 || desc->h <= 0 || desc->w <= 0 || desc->k <= 0) return NOVA_STATUS_INVALID_ARGUMENT;
  if (desc->pad < 0 || desc->pad > 2 || desc->kernel_size < 1) return NOVA_STATUS_INVALID_ARGUMENT;
  if (!valid_enum(desc->layout, {NOVA_LAYOUT_NCHW, NOVA_LAYOUT_NHWC}) ||
      !valid_enum(desc->dtype, {NOVA_DTYPE_FP32, NOVA_DTYPE_FP16, NOVA_DTYPE_BF16}) ||
      !valid_enum(desc->algorithm, {NOVA_ALGO_AUTO, NOVA_ALGO_THREE_PASS, NOVA_ALGO_FUSED}))
    return NOVA_STATUS_INVALID_ARGUMENT;
  if (!(desc->max_error >= 0) || desc->max_error == HUGE_VAL) return NOVA_STATUS_INVALID_ARGUMENT;  // NaN too
  if (desc->stride != 1 || desc->dilation != 1 || desc->groups != 1) return NOVA_STATUS_NOT_SUPPORTED;
  // Each size on its own within the element limit first, so that no sum or product below overflows.
  for (const int64_t size : {desc->n, desc->c, desc->h, desc->w, desc->k})
    if (size > kMaxElements) return NOVA_STATUS_SIZE_OVERFLOW;
  if (desc->kernel_size > desc->h + 2 * desc->pad || desc->kernel_size > desc->w + 2 * desc->pad)
    return NOVA_STATUS_INVALID_ARGUMENT;  // image smaller than the filter
  s.n = desc->n, s.c = desc->c, s.h = desc->h, s.w = desc->w, s.k = desc->k;
  s.r = desc->kernel_size, s.pad = desc->pad, s.layout = desc->layout, s.dtype = desc->dtype;
  s.algorithm = desc->algorithm;
  s.error_budget = desc->max_error > 0 ? desc->max_error : dtype_traits(s.dtype).error_budget;
  s.h_out = s.h + 2 * s.pad - s.r + 1;
  s.w_out = s.w + 2 * s.pad - s.r + 1;
  int64_t elements = 0;
  if (!checked_product({s.n, s.c, s.h, s.w}, elements) || !checked_product({s.n, s.k, s.h_out, s.w_out}, elements) ||
      !checked_product({s.k, s.c, s.r, s.r}, elements))
    return NOVA_STATUS_SIZE_OVERFLOW;
  return NOVA_STATUS_SUCCESS;
}

Tiling tile_shape(const ConvShape& s, const TransformEntry& t) { return tile_shape(s, t.m, t.n); }

Tiling tile_shape(const ConvShape& s, int m, int n) {
  Tiling tiling;
  tiling.m = m;
  tiling.n = n;
  tiling.tiles_h = (s.h_out + m - 1) / m;
  tiling.tiles_w = (s.w_out + m - 1) / m;
  tiling.tiles = s.n * tiling.tiles_h * tiling.tiles_w;
  tiling.c = s.c;
  tiling.k = s.k;
  return tiling;
}

void fill_stage_traffic(const ConvShape& s, const TransformEntry& t, int transformed_bytes, int product_bytes,
                        bool fused, nova_stage_profile_t& p) {
  const Tiling tiling = tile_shape(s, t);
  const double io_bytes = dtype_traits(s.dtype).bytes;
  const double v = static_cast<double>(tiling.transformed_input_elements()) * transformed_bytes;
  const double u = static_cast<double>(tiling.transformed_filter_elements()) * transformed_bytes;
  const double m = static_cast<double>(tiling.product_elements()) * product_bytes;
  const double x = static_cast<double>(s.input_elements()) * io_bytes;
  const double y = static_cast<double>(s.output_elements()) * io_bytes;
  p.fused = fused ? 1 : 0;
  p.filter_bytes = static_cast<double>(s.filter_elements()) * sizeof(float) + u;
  if (fused) {  // the kernel reads x and U and writes y, in either layout
    p.input_bytes = 0;
    p.gemm_bytes = x + u + y;
    p.output_bytes = 0;
  } else {
    p.input_bytes = x + v;
    p.gemm_bytes = u + v + m;
    p.output_bytes = m + y;
  }
  p.gemm_flops = 2.0 * t.n * t.n * static_cast<double>(s.k) * static_cast<double>(s.c) * static_cast<double>(tiling.tiles);
}

double forward_traffic_bytes(const ConvShape& s, const TransformEntry& t, int transformed_bytes, int product_bytes) {
  nova_stage_profile_t p{};
  fill_stage_traffic(s, t, transformed_bytes, product_bytes, false, p);
  return p.input_bytes + p.gemm_bytes + p.output_bytes;
}

std::vector<const TransformEntry*> ranked_transforms(const ConvShape& s, const CostModel& cost) {
  // The 3-pass pipeline is memory-bound, so the transform whose forward pass moves the fewest bytes
  // wins (the filter transform is cached and does not count). Bigger tiles shrink V and M per
  // output but grow U by n^2 and waste more of a small image in border tiles. The fused kernel is
  // issue-bound: the fewest Winograd-domain elements, then the fewest transform operations win.
  std::vector<std::pair<PathCost, const TransformEntry*>> scored;
  for (const TransformEntry* t : all_transforms())
    if (t->r == s.r && within_error_budget(*t, s)) scored.emplace_back(cost(*t), t);
  std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) {
    return std::tie(x.first.volume, x.first.transform_ops, x.second->amp2d) <
           std::tie(y.first.volume, y.first.transform_ops, y.second->amp2d);
  });
  std::vector<const TransformEntry*> out;
  for (const auto& [c, t] : scored) out.push_back(t);
  return out;
}

nova_status_t resolve_transform(const nova_conv_desc_t* desc, const ConvShape& s, const TransformEntry*& out,
                                const CostModel& cost) {
  out = nullptr;
  if (desc->transform && std::strcmp(desc->transform, "auto") != 0 && std::strcmp(desc->transform, "tuned") != 0) {
    out = find_transform(desc->transform);
    if (!out) return NOVA_STATUS_UNKNOWN_TRANSFORM;
    if (out->r != s.r) return NOVA_STATUS_NOT_SUPPORTED;
    if (!within_error_budget(*out, s) && !desc->allow_inaccurate) return NOVA_STATUS_INACCURATE;
  } else {
    const std::vector<const TransformEntry*> ranked = ranked_transforms(s, cost);
    if (ranked.empty()) return s.r == 3 ? NOVA_STATUS_UNKNOWN_TRANSFORM : NOVA_STATUS_NOT_SUPPORTED;
    out = ranked.front();
  }
  return check_tiled_sizes(s, *out);
}

bool same_problem(const ConvShape& a, const ConvShape& b) {
  return a.n == b.n && a.c == b.c && a.h == b.h && a.w == b.w && a.k == b.k && a.r == b.r && a.pad == b.pad &&
         a.layout == b.layout && a.dtype == b.dtype && a.algorithm == b.algorithm && a.error_budget == b.error_budget;
}

nova_status_t check_tiled_sizes(const ConvShape& s, const TransformEntry& t) {
  int64_t elements = 0;
  const Tiling tiling = tile_shape(s, t);
  if (!checked_product({tiling.n, tiling.n, s.c, tiling.tiles}, elements) ||
      !checked_product({tiling.n, tiling.n, s.k, tiling.tiles}, elements))
    return NOVA_STATUS_SIZE_OVERFLOW;
  return NOVA_STATUS_SUCCESS;
}

}  // namespace nova::runtime
