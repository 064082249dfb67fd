// The runtime's transform ranking (runtime/src/conv_shape.cpp, compiled into this test: its
// functions are internal to the library): what "auto" takes on each path, and what each dtype
// contributes (element size, unit roundoff, default budget).
#include "conv_shape.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

namespace {

using nova::runtime::ConvShape;
using nova::runtime::PathCost;
using nova::kernels::TransformEntry;

// ResNet-50's 64@56 layer in fp16, NHWC, as validate_descriptor() derives it (the default budget).
ConvShape fp16_layer() {
  nova_conv_desc_t d;
  nova_conv_desc_init(&d);
  d.n = 32, d.c = 64, d.k = 64, d.h = 56, d.w = 56;
  d.layout = NOVA_LAYOUT_NHWC, d.dtype = NOVA_DTYPE_FP16;
  ConvShape s;
  REQUIRE(nova::runtime::validate_descriptor(&d, s) == NOVA_STATUS_SUCCESS);
  return s;
}

}  // namespace

TEST_CASE("the registry carries each transform's operation counts from codegen") {
  // nova-codegen --stats: f4x3_standard input 144 + 84, output 100 + 30; f4x3_fp16 240 + 312, 140 + 160 (balanced-units).
  const TransformEntry* standard = nova::kernels::find_transform("f4x3_standard");
  const TransformEntry* fp16 = nova::kernels::find_transform("f4x3_fp16");
  REQUIRE(standard);
  REQUIRE(fp16);
  CHECK(standard->input_ops == 228);
  CHECK(standard->output_ops == 130);
  CHECK(fp16->input_ops == 552);
  CHECK(fp16->output_ops == 300);
}

TEST_CASE("ranking: least volume, then fewest transform operations, then lowest amp2D, HUGE_VAL last") {
  const ConvShape s = fp16_layer();
  // Every F(4,3) transform costs the same volume (as on the fused path), the others are ruled out.
  const auto ranked_f4x3 = [&](bool count_ops) {
    return nova::runtime::ranked_transforms(s, [&](const TransformEntry& t) {
      if (t.m != 4) return PathCost{HUGE_VAL, 0};
      return PathCost{1000.0, count_ops ? static_cast<double>(s.c) * t.input_ops + static_cast<double>(s.k) * t.output_ops : 0};
    });
  };
  const auto with_ops = ranked_f4x3(true), without_ops = ranked_f4x3(false);
  REQUIRE(with_ops.size() >= 2);
  CHECK(std::string(with_ops.front()->name) == "f4x3_standard");
  CHECK(std::string(without_ops.front()->name) == "f4x3_fp16");  // the lowest amp2D of the F(4,3) sets
  bool ruled_out_seen = false;
  for (std::size_t i = 0; i < with_ops.size(); ++i) {
    const TransformEntry& t = *with_ops[i];
    if (t.m != 4) {
      ruled_out_seen = true;
      continue;
    }
    INFO(t.name);
    CHECK_FALSE(ruled_out_seen);  // every candidate before every ruled-out one
    if (i > 0 && with_ops[i - 1]->m == 4)
      CHECK(s.c * with_ops[i - 1]->input_ops + s.k * with_ops[i - 1]->output_ops <= s.c * t.input_ops + s.k * t.output_ops);
  }
  for (std::size_t i = 1; i < without_ops.size(); ++i)
    if (without_ops[i]->m == 4) CHECK(without_ops[i - 1]->amp2d <= without_ops[i]->amp2d);
}

TEST_CASE("ranking: the fp16 error budget keeps out transforms whose predicted error exceeds 1e-2") {
  const ConvShape s = fp16_layer();
  for (const TransformEntry* t : nova::runtime::ranked_transforms(s, [](const TransformEntry&) { return PathCost{1, 0}; })) {
    INFO(t->name);
    CHECK(0.7 * 0x1p-11 * t->amp2d <= 1e-2);
  }
}

TEST_CASE("fused traffic: the kernel moves x, U and y, in either layout") {
  ConvShape s = fp16_layer();
  const TransformEntry* t = nova::kernels::find_transform("f4x3_standard");
  REQUIRE(t);
  const double x = 2.0 * 32 * 64 * 56 * 56, y = x, u = 2.0 * 36 * 64 * 64;
  for (const nova_layout_t layout : {NOVA_LAYOUT_NHWC, NOVA_LAYOUT_NCHW}) {
    s.layout = layout;
    nova_stage_profile_t p{};
    nova::runtime::fill_stage_traffic(s, *t, 2, 4, true, p);
    CHECK(p.fused == 1);
    CHECK(p.input_bytes == 0);
    CHECK(p.gemm_bytes == Approx(x + u + y));
    CHECK(p.output_bytes == 0);
  }
}

TEST_CASE("each dtype's element size, unit roundoff and default budget: bf16 moves fp16's bytes") {
  using nova::runtime::dtype_traits;
  CHECK(dtype_traits(NOVA_DTYPE_FP32).bytes == 4);
  CHECK(dtype_traits(NOVA_DTYPE_FP16).bytes == 2);
  CHECK(dtype_traits(NOVA_DTYPE_BF16).bytes == 2);
  CHECK(dtype_traits(NOVA_DTYPE_FP32).unit_roundoff == std::ldexp(1.0, -24));
  CHECK(dtype_traits(NOVA_DTYPE_FP16).unit_roundoff == std::ldexp(1.0, -11));
  CHECK(dtype_traits(NOVA_DTYPE_BF16).unit_roundoff == std::ldexp(1.0, -8));
  ConvShape half = fp16_layer(), bf16;
  nova_conv_desc_t d;
  nova_conv_desc_init(&d);
  d.n = half.n, d.c = half.c, d.k = half.k, d.h = half.h, d.w = half.w;
  d.layout = half.layout, d.dtype = NOVA_DTYPE_BF16;
  REQUIRE(nova::runtime::validate_descriptor(&d, bf16) == NOVA_STATUS_SUCCESS);
  CHECK(half.error_budget == 1e-2);
  CHECK(bf16.error_budget == 3e-2);
  const TransformEntry* t = nova::kernels::find_transform("f4x3_fp16");
  REQUIRE(t);
  nova_stage_profile_t a{}, b{};
  nova::runtime::fill_stage_traffic(half, *t, 2, 4, false, a);
  nova::runtime::fill_stage_traffic(bf16, *t, 2, 4, false, b);
  CHECK(a.input_bytes == b.input_bytes);
  CHECK(a.output_bytes == b.output_bytes);
  CHECK(a.input_bytes > 0);
}

TEST_CASE("a 16-bit M: within the budget at sqrt(3/2) the error, half of M's bytes, never in fp32") {
  using nova::runtime::narrow_product_fits;
  using nova::runtime::predicted_error;
  using nova::runtime::predicted_storage_error;
  ConvShape s = fp16_layer();
  const TransformEntry* t = nova::kernels::find_transform("f4x3_standard");
  REQUIRE(t);
  const double plain = 0.7 * 0x1p-11 * t->amp2d;
  CHECK(predicted_storage_error(*t, s, false) == plain);
  CHECK(predicted_storage_error(*t, s, true) == Approx(plain * std::sqrt(1.5)).epsilon(1e-12));
  CHECK(narrow_product_fits(*t, s));  // 3.7e-3 x 1.22 within 1e-2
  s.error_budget = plain;             // M in 16 bits would exceed it; the transform itself fits
  CHECK(nova::runtime::within_error_budget(*t, s));
  CHECK_FALSE(narrow_product_fits(*t, s));
  s.error_budget = plain * std::sqrt(1.5);
  CHECK(narrow_product_fits(*t, s));
  // The full prediction adds the output's own rounding in quadrature, and grows with C only in fp32.
  CHECK(predicted_error(*t, s, true) == Approx(std::hypot(plain * std::sqrt(1.5), 0x1p-11 / std::sqrt(3.0))));
  ConvShape fp32 = s;
  fp32.dtype = NOVA_DTYPE_FP32, fp32.error_budget = 1.0;
  CHECK_FALSE(narrow_product_fits(*t, fp32));
  CHECK(predicted_error(*t, fp32, false) ==
        Approx(std::hypot(0.7 * 0x1p-24 * t->amp2d * std::sqrt(1.0 + 64 / 3.0), 0x1p-24 / std::sqrt(3.0))));
  nova_stage_profile_t wide{}, narrow{};
  nova::runtime::fill_stage_traffic(s, *t, 2, 4, false, wide);
  nova::runtime::fill_stage_traffic(s, *t, 2, 2, false, narrow);
  const double m = 36.0 * 32 * 14 * 14 * 64;  // product elements: 32 images of 14 x 14 tiles
  CHECK(wide.gemm_bytes - narrow.gemm_bytes == Approx(2 * m));
  CHECK(wide.output_bytes - narrow.output_bytes == Approx(2 * m));
  CHECK(wide.input_bytes == narrow.input_bytes);
}
