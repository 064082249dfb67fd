// A validated convolution descriptor with every derived size the backends need.
#pragma once

#include "nova/runtime.h"
#include "transform_table.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace nova::runtime {

struct ConvShape {
  int64_t n = 0, c = 0, h = 0, w = 0, k = 0;
  int r = 3, pad = 0;
  int64_t h_out = 0, w_out = 0;
  nova_layout_t layout = NOVA_LAYOUT_NCHW;
  nova_dtype_t dtype = NOVA_DTYPE_FP32;
  nova_algo_t algorithm = NOVA_ALGO_AUTO;
  double error_budget = 0;  // predicted relative error a transform may have (max_error or the dtype's)

  int64_t input_elements() const { return n * c * h * w; }
  int64_t output_elements() const { return n * k * h_out * w_out; }
  int64_t filter_elements() const { return k * c * r * r; }
};

// Tiling of a shape by one transform: P tiles of m x m outputs, each reading an n x n patch.
struct Tiling {
  int m = 0, n = 0;
  int64_t c = 0, k = 0;
  int64_t tiles_h = 0, tiles_w = 0, tiles = 0;  // tiles = P = N * tiles_h * tiles_w
  int64_t transformed_input_elements() const { return int64_t{n} * n * c * tiles; }  // V: [n*n][C][P]
  int64_t product_elements() const { return int64_t{n} * n * k * tiles; }            // M: [n*n][K][P]
  int64_t transformed_filter_elements() const { return int64_t{n} * n * k * c; }     // U: [n*n][K][C]
};

// What the runtime needs of each dtype (a valid one: validate_descriptor checks it): the bytes of
// one x or y element (and of one V or U element where the storage type is the I/O type, as on the
// GPU), the unit roundoff u of the type V and U are stored in (the precision model predicts
// 0.7 u amp2D, docs/design.md §6), and the default error budget.
struct DtypeTraits {
  int bytes;
  double unit_roundoff;
  double error_budget;
};
const DtypeTraits& dtype_traits(nova_dtype_t dtype);

// Checks every field; returns SUCCESS and fills `shape`, or the status that names the problem.
nova_status_t validate_descriptor(const nova_conv_desc_t* desc, ConvShape& shape);

// Whether two validated shapes pose the same problem (sizes, layout, dtype, path asked, error
// budget): what the choices remembered per shape are keyed by.
bool same_problem(const ConvShape& a, const ConvShape& b);

Tiling tile_shape(const ConvShape& shape, const TransformEntry& transform);
Tiling tile_shape(const ConvShape& shape, int m, int n);  // by tile sizes alone

// The fewest bytes each stage must move (every input read once, every output written once), with
// V and U stored in `transformed_bytes` per element and M in `product_bytes` (4: fp32, 2: the 16-bit
// storage type); also the GEMM's flops. Fused: only x, U and y cross memory (nova_stage_profile_t
// says how they are reported).
void fill_stage_traffic(const ConvShape& shape, const TransformEntry& t, int transformed_bytes, int product_bytes,
                        bool fused, nova_stage_profile_t& traffic);

// Bytes one 3-pass forward pass moves, the cost "auto" minimises on that path: the three stages'
// fewest bytes.
double forward_traffic_bytes(const ConvShape& shape, const TransformEntry& t, int transformed_bytes, int product_bytes);

// What a forward pass with a transform costs on the path the backend takes. The 3-pass pipeline is
// memory-bound: `volume` is the bytes it moves. The fused kernel is issue-bound: `volume` is the
// Winograd-domain elements it computes per channel (tiles x n^2), and `transform_ops` the
// operations of one tile's input and output transforms over all channels. Costs are compared only
// within one path.
struct PathCost {
  double volume = 0, transform_ops = 0;
};
using CostModel = std::function<PathCost(const TransformEntry&)>;

// The precision model (docs/design.md §6): the predicted relative error of a forward with `t` in
// the shape's dtype is 0.7 u amp2D, from the rounding of V and of U to the storage type (unit
// roundoff u). Where the 3-pass pipeline also stores the Winograd-domain product M in the 16-bit
// storage type (`narrow_product`), a third rounding of the same size joins the two: sqrt(3/2) x.
double predicted_storage_error(const TransformEntry& t, const ConvShape& s, bool narrow_product);

// Whether the predicted error of `t` (M in fp32) fits the shape's error budget.
bool within_error_budget(const TransformEntry& t, const ConvShape& s);

// Whether `t` still fits the budget with M stored in the 16-bit storage type (fp16 and bf16 only):
// where it does, the GPU's 3-pass pipeline stores M so (half the bytes of its GEMM's output and
// of the output transform's input).
bool narrow_product_fits(const TransformEntry& t, const ConvShape& s);

// The precision model's full prediction of the relative RMS error of one forward: the storage part
// (predicted_storage_error); in fp32, where every stage rounds at u, grown by the GEMM's sum over C
// as sqrt(1 + C/3); and the output's own rounding (u / sqrt(3)) in quadrature.
double predicted_error(const TransformEntry& t, const ConvShape& s, bool narrow_product);

// The transforms "auto" may take for `shape` (those whose predicted error fits its error budget),
// best first: least volume, then fewest transform operations (which only the fused kernel counts),
// then lowest amp2D, then registry (name) order. A volume of HUGE_VAL rules one out.
std::vector<const TransformEntry*> ranked_transforms(const ConvShape& shape, const CostModel& cost);

// The transform that serves `desc`: by name, or the first of ranked_transforms ("auto"; "tuned"
// is resolved by the runtime, which times the first few). Also checks the sizes it implies.
nova_status_t resolve_transform(const nova_conv_desc_t* desc, const ConvShape& shape, const TransformEntry*& out,
                                const CostModel& cost);

// SIZE_OVERFLOW when V or M of `shape` tiled by `t` would not fit the 32-bit element indices.
nova_status_t check_tiled_sizes(const ConvShape& shape, const TransformEntry& t);

}  // namespace nova::runtime
