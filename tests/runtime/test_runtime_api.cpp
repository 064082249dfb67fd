// The C API's contract: clear statuses for every bad input, the filter cache, the workspace rules.
#include "nova/kernels/transform_registry.hpp"
#include "nova/runtime.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

nova::ConvDesc small_desc() {
  nova::ConvDesc d;
  d.n = 1, d.c = 3, d.h = 9, d.w = 11, d.k = 5;
  return d;
}

struct Buffers {
  std::vector<float> x, w, y;
  explicit Buffers(const nova::ConvDesc& d)
      : x(static_cast<size_t>(d.n * d.c * d.h * d.w), 0.5f), w(static_cast<size_t>(d.k * d.c * 9), 0.25f),
        y(static_cast<size_t>(d.n * d.k * d.h * d.w)) {}
};

nova_status_t forward(nova_handle_t h, const nova::ConvDesc& d, Buffers& b) {
  return nova_conv_forward(h, &d, b.x.data(), b.w.data(), 1, nullptr, 0, b.y.data(), nullptr, 0);
}

}  // namespace

TEST_CASE("bad descriptors return a clear status") {
  nova::Handle handle;
  Buffers b(small_desc());
  const struct {
    const char* what;
    void (*edit)(nova::ConvDesc&);
    nova_status_t expected;
  } cases[] = {
      {"zero batch", [](nova::ConvDesc& d) { d.n = 0; }, NOVA_STATUS_INVALID_ARGUMENT},
      {"zero channels", [](nova::ConvDesc& d) { d.c = 0; }, NOVA_STATUS_INVALID_ARGUMENT},
      {"negative width", [](nova::ConvDesc& d) { d.w = -4; }, NOVA_STATUS_INVALID_ARGUMENT},
      {"negative padding", [](nova::ConvDesc& d) { d.pad = -1; }, NOVA_STATUS_INVALID_ARGUMENT},
      {"padding 3", [](nova::ConvDesc& d) { d.pad = 3; }, NOVA_STATUS_INVALID_ARGUMENT},
      {"image smaller than filter", [](nova::ConvDesc& d) { d.h = 1; d.pad = 0; }, NOVA_STATUS_INVALID_ARGUMENT},
      // A C caller can store any int in an enum field.
      {"bad layout", [](nova::ConvDesc& d) { const int v = 7; std::memcpy(&d.layout, &v, sizeof v); }, NOVA_STATUS_INVALID_ARGUMENT},
      {"bad dtype", [](nova::ConvDesc& d) { const int v = 9; std::memcpy(&d.dtype, &v, sizeof v); }, NOVA_STATUS_INVALID_ARGUMENT},
      {"bad algorithm", [](nova::ConvDesc& d) { const int v = 5; std::memcpy(&d.algorithm, &v, sizeof v); }, NOVA_STATUS_INVALID_ARGUMENT},
      {"fused on the CPU", [](nova::ConvDesc& d) { d.algorithm = NOVA_ALGO_FUSED; }, NOVA_STATUS_NOT_SUPPORTED},
      {"stride 2", [](nova::ConvDesc& d) { d.stride = 2; }, NOVA_STATUS_NOT_SUPPORTED},
      {"dilation 2", [](nova::ConvDesc& d) { d.dilation = 2; }, NOVA_STATUS_NOT_SUPPORTED},
      {"groups 2", [](nova::ConvDesc& d) { d.groups = 2; }, NOVA_STATUS_NOT_SUPPORTED},
      {"kernel size 4", [](nova::ConvDesc& d) { d.kernel_size = 4; }, NOVA_STATUS_NOT_SUPPORTED},
      {"unknown transform", [](nova::ConvDesc& d) { d.transform = "f6x3_nonexistent"; }, NOVA_STATUS_UNKNOWN_TRANSFORM},
      {"size overflow", [](nova::ConvDesc& d) { d.n = d.c = d.h = d.w = 1LL << 20; }, NOVA_STATUS_SIZE_OVERFLOW},
      {"product overflow", [](nova::ConvDesc& d) { d.n = d.c = 1LL << 40; d.h = d.w = 1LL << 40; }, NOVA_STATUS_SIZE_OVERFLOW},
      // Sizes whose output extent alone overflows 64 bits: refused before any arithmetic on them.
      {"height INT64_MAX", [](nova::ConvDesc& d) { d.h = INT64_MAX; }, NOVA_STATUS_SIZE_OVERFLOW},
      {"kernel larger than the image", [](nova::ConvDesc& d) { d.kernel_size = INT_MAX; }, NOVA_STATUS_INVALID_ARGUMENT},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    nova::ConvDesc d = small_desc();
    c.edit(d);
    size_t bytes = 0;
    CHECK(nova_conv_workspace_size(handle.get(), &d, &bytes) == c.expected);
    CHECK(forward(handle.get(), d, b) == c.expected);
    CHECK(std::strlen(nova_status_string(c.expected)) > 20);
  }
}

TEST_CASE("every status has its own explanation") {
  const nova_status_t last = NOVA_STATUS_COMPILE_FAILED;
  std::vector<std::string> seen;
  for (int i = NOVA_STATUS_SUCCESS; i <= last; ++i) {
    const std::string text = nova_status_string(static_cast<nova_status_t>(i));
    INFO(i);
    CHECK(text != "unknown status");
    CHECK(std::find(seen.begin(), seen.end(), text) == seen.end());
    seen.push_back(text);
  }
  CHECK_THAT(std::string(nova_status_string(NOVA_STATUS_MISALIGNED)), Catch::Contains("16-byte"));
  // Past the last, as a newer library's status would be: values of the type (NOVA_STATUS_RANGE_END; clang's
  // -fsanitize=enum checks that), each answered "unknown status".
  static_assert(sizeof(nova_status_t) == sizeof(int), "a C int on the ABI (the Python package passes one)");
  for (const int beyond : {static_cast<int>(last) + 1, 1000, static_cast<int>(NOVA_STATUS_RANGE_END)}) {
    INFO(beyond);
    CHECK(std::string(nova_status_string(static_cast<nova_status_t>(beyond))) == "unknown status");
  }
}

TEST_CASE("null pointers and small workspaces are rejected") {
  nova::Handle handle;
  const nova::ConvDesc d = small_desc();
  Buffers b(d);
  CHECK(nova_create(nullptr, NOVA_BACKEND_CPU, nullptr) == NOVA_STATUS_INVALID_ARGUMENT);
  CHECK(nova_conv_forward(nullptr, &d, b.x.data(), b.w.data(), 1, nullptr, 0, b.y.data(), nullptr, 0) ==
        NOVA_STATUS_INVALID_ARGUMENT);
  CHECK(nova_conv_forward(handle.get(), nullptr, b.x.data(), b.w.data(), 1, nullptr, 0, b.y.data(), nullptr, 0) ==
        NOVA_STATUS_INVALID_ARGUMENT);
  CHECK(nova_conv_forward(handle.get(), &d, nullptr, b.w.data(), 1, nullptr, 0, b.y.data(), nullptr, 0) ==
        NOVA_STATUS_INVALID_ARGUMENT);
  CHECK(nova_conv_forward(handle.get(), &d, b.x.data(), nullptr, 1, nullptr, 0, b.y.data(), nullptr, 0) ==
        NOVA_STATUS_INVALID_ARGUMENT);
  CHECK(nova_conv_forward(handle.get(), &d, b.x.data(), b.w.data(), 1, nullptr, 0, nullptr, nullptr, 0) ==
        NOVA_STATUS_INVALID_ARGUMENT);
  CHECK(nova_conv_workspace_size(handle.get(), &d, nullptr) == NOVA_STATUS_INVALID_ARGUMENT);
  CHECK(nova_filter_transform(handle.get(), &d, nullptr, 1) == NOVA_STATUS_INVALID_ARGUMENT);

  const size_t bytes = handle.workspace_size(d);
  std::vector<unsigned char> ws(bytes);
  CHECK(nova_conv_forward(handle.get(), &d, b.x.data(), b.w.data(), 1, nullptr, 0, b.y.data(), ws.data(), bytes - 1) ==
        NOVA_STATUS_WORKSPACE_TOO_SMALL);
  CHECK(nova_conv_forward(handle.get(), &d, b.x.data(), b.w.data(), 1, nullptr, 0, b.y.data(), ws.data(), bytes) ==
        NOVA_STATUS_SUCCESS);
}

TEST_CASE("GPU handle without a GPU build is refused with NO_GPU, not a crash") {
  nova_handle_t h = nullptr;
  const nova_status_t st = nova_create(&h, NOVA_BACKEND_GPU, nullptr);
  if (st == NOVA_STATUS_SUCCESS) {
    nova_destroy(h);
    SUCCEED("GPU present");
  } else {
    CHECK(st == NOVA_STATUS_NO_GPU);
    CHECK(h == nullptr);
  }
}

TEST_CASE("the filter cache follows the weights version and explicit invalidation") {
  nova::Handle handle;
  nova::ConvDesc d = small_desc();
  d.pad = 1;
  Buffers b(d);
  std::vector<float> first(b.y.size()), second(b.y.size());
  handle.forward(d, b.x.data(), b.w.data(), 1, first.data());
  for (auto& v : b.w) v *= 2.0f;
  handle.forward(d, b.x.data(), b.w.data(), 1, second.data());  // same version: the cached filter is used
  CHECK(second == first);
  handle.forward(d, b.x.data(), b.w.data(), 2, second.data());  // bumped version: recomputed
  CHECK(second[0] == Approx(2.0f * first[0]));
  for (auto& v : b.w) v *= 0.5f;
  handle.invalidate_filter(b.w.data());
  handle.forward(d, b.x.data(), b.w.data(), 2, second.data());  // invalidated: recomputed
  CHECK(second[0] == Approx(first[0]));
}

// One weights version in two dtypes (two element roundings, two cache keys): both filters stay, so a
// model that alternates them does not transform its filters again on every call; a new version
// replaces both.
TEST_CASE("the filter cache keeps a version's filters side by side and drops older versions") {
  nova::Handle handle;
  nova::ConvDesc half = small_desc();
  half.pad = 1, half.transform = "f4x3_fp16", half.dtype = NOVA_DTYPE_FP16;
  nova::ConvDesc bf16 = half;
  bf16.dtype = NOVA_DTYPE_BF16;
  const Buffers b(half);
  REQUIRE(nova_filter_transform(handle.get(), &half, b.w.data(), 1) == NOVA_STATUS_SUCCESS);
  const size_t one = handle.filter_cache_bytes();
  REQUIRE(one > 0);
  REQUIRE(nova_filter_transform(handle.get(), &bf16, b.w.data(), 1) == NOVA_STATUS_SUCCESS);
  CHECK(handle.filter_cache_bytes() == 2 * one);
  REQUIRE(nova_filter_transform(handle.get(), &half, b.w.data(), 1) == NOVA_STATUS_SUCCESS);  // a hit
  CHECK(handle.filter_cache_bytes() == 2 * one);
  REQUIRE(nova_filter_transform(handle.get(), &half, b.w.data(), 2) == NOVA_STATUS_SUCCESS);
  CHECK(handle.filter_cache_bytes() == one);
}

TEST_CASE("a filter the caller holds gives the cached filter's bits, another plan's filter is refused") {
  nova::Handle handle;
  nova::ConvDesc d = small_desc();
  Buffers b(d);
  for (size_t i = 0; i < b.w.size(); ++i) b.w[i] = static_cast<float>(i % 7) * 0.125f - 0.3f;
  for (size_t i = 0; i < b.x.size(); ++i) b.x[i] = static_cast<float>(i % 5) * 0.5f - 1.0f;
  std::vector<float> cached(b.y.size()), held(b.y.size(), -1.0f);
  handle.forward(d, b.x.data(), b.w.data(), 1, cached.data());

  nova_filter_plan_t plan{};
  REQUIRE(nova_filter_plan(handle.get(), &d, &plan) == NOVA_STATUS_SUCCESS);
  CHECK(plan.scratch_bytes == 0);  // only the GPU's fused order needs scratch
  std::vector<float> filter(plan.bytes / sizeof(float));
  REQUIRE(nova_filter_transform_into(handle.get(), &d, b.w.data(), &plan, filter.data(), nullptr) == NOVA_STATUS_SUCCESS);
  REQUIRE(nova_conv_forward_with_filter(handle.get(), &d, b.x.data(), &plan, filter.data(), nullptr, 0, held.data(),
                                        nullptr, 0) == NOVA_STATUS_SUCCESS);
  CHECK(held == cached);

  nova::ConvDesc other = d;
  other.transform = "f2x3_standard";  // same shape, another transform: another plan
  nova_filter_plan_t other_plan{};
  REQUIRE(nova_filter_plan(handle.get(), &other, &other_plan) == NOVA_STATUS_SUCCESS);
  CHECK(other_plan.layout != plan.layout);
  CHECK(nova_conv_forward_with_filter(handle.get(), &other, b.x.data(), &plan, filter.data(), nullptr, 0, held.data(),
                                      nullptr, 0) == NOVA_STATUS_FILTER_MISMATCH);
  CHECK(nova_filter_transform_into(handle.get(), &other, b.w.data(), &plan, filter.data(), nullptr) ==
        NOVA_STATUS_FILTER_MISMATCH);
  // Same shape and transform in fp16 and bf16: elements of one size, rounded differently.
  nova::ConvDesc half = d, bf16 = d;
  half.dtype = NOVA_DTYPE_FP16, bf16.dtype = NOVA_DTYPE_BF16;
  half.transform = bf16.transform = "f4x3_fp16";
  nova_filter_plan_t half_plan{}, bf16_plan{};
  REQUIRE(nova_filter_plan(handle.get(), &half, &half_plan) == NOVA_STATUS_SUCCESS);
  REQUIRE(nova_filter_plan(handle.get(), &bf16, &bf16_plan) == NOVA_STATUS_SUCCESS);
  CHECK(half_plan.bytes == bf16_plan.bytes);
  CHECK(half_plan.layout != bf16_plan.layout);
  nova_filter_plan_t short_plan = plan;
  short_plan.bytes -= sizeof(float);
  CHECK(nova_conv_forward_with_filter(handle.get(), &d, b.x.data(), &short_plan, filter.data(), nullptr, 0, held.data(),
                                      nullptr, 0) == NOVA_STATUS_FILTER_MISMATCH);
  CHECK(nova_conv_forward_with_filter(handle.get(), &d, b.x.data(), nullptr, filter.data(), nullptr, 0, held.data(),
                                      nullptr, 0) == NOVA_STATUS_INVALID_ARGUMENT);
  CHECK(nova_filter_plan(handle.get(), &d, nullptr) == NOVA_STATUS_INVALID_ARGUMENT);
  CHECK(nova_set_stream(nullptr, nullptr) == NOVA_STATUS_INVALID_ARGUMENT);
  CHECK(nova_set_stream(handle.get(), nullptr) == NOVA_STATUS_SUCCESS);  // the CPU has no stream
}

TEST_CASE("C++ wrapper turns statuses into nova::Error") {
  nova::Handle handle;
  nova::ConvDesc d = small_desc();
  d.stride = 2;
  try {
    handle.workspace_size(d);
    FAIL("no exception");
  } catch (const nova::Error& e) {
    CHECK(e.status() == NOVA_STATUS_NOT_SUPPORTED);
    CHECK_THAT(std::string(e.what()), Catch::Contains("stride 1"));
  }
}

TEST_CASE("profile reports stage times and the fewest bytes per stage") {
  nova::Handle handle;
  nova::ConvDesc d = small_desc();
  d.transform = "f4x3_standard";
  Buffers b(d);
  nova_stage_profile_t p;
  std::memset(&p, 0xff, sizeof p);  // every field the profile does not set must read 0
  REQUIRE(nova_conv_profile(handle.get(), &d, b.x.data(), b.w.data(), 1, nullptr, 0, b.y.data(), nullptr, 0, &p) ==
          NOVA_STATUS_SUCCESS);
  CHECK(p.fused == 0);
  CHECK(p.fused_tiles == 0);
  CHECK(p.fused_input == 0);
  CHECK(p.input_ms >= 0);
  CHECK(p.gemm_ms >= 0);
  // 9 x 11 output, pad 1, F(4,3): 3 x 3 tiles of a 6 x 6 domain; CPU stores fp32.
  const double tiles = 9, nn = 36;
  CHECK(p.input_bytes == Approx(4.0 * (3 * 9 * 11) + 4.0 * nn * 3 * tiles));
  CHECK(p.gemm_bytes == Approx(4.0 * nn * (5 * 3 + 3 * tiles + 5 * tiles)));
  CHECK(p.output_bytes == Approx(4.0 * nn * 5 * tiles + 4.0 * 5 * 9 * 11));
  CHECK(p.gemm_flops == Approx(2.0 * nn * 5 * 3 * tiles));
  CHECK(nova_conv_profile(handle.get(), &d, b.x.data(), b.w.data(), 1, nullptr, 0, b.y.data(), nullptr, 0, nullptr) ==
        NOVA_STATUS_INVALID_ARGUMENT);
}

TEST_CASE("the transform list names every generated transform") {
  const int count = nova_transform_count();
  REQUIRE(count >= 9);
  for (int i = 0; i < count; ++i) {
    nova_transform_info_t info{};
    REQUIRE(nova_transform_info(i, &info) == NOVA_STATUS_SUCCESS);
    CHECK(std::string(info.name).rfind("f" + std::to_string(info.m) + "x" + std::to_string(info.r) + "_", 0) == 0);
    CHECK(info.amp2d > 0);
  }
  nova_transform_info_t info{};
  CHECK(nova_transform_info(count, &info) == NOVA_STATUS_INVALID_ARGUMENT);
  CHECK(nova_transform_info(0, nullptr) == NOVA_STATUS_INVALID_ARGUMENT);
}

TEST_CASE("\"tuned\" times the best-ranked transforms once per shape and then runs the fastest") {
  nova::Handle handle;
  nova::ConvDesc d = small_desc();
  d.transform = "tuned";
  const char* first = nullptr;
  REQUIRE(nova_conv_transform_name(handle.get(), &d, &first) == NOVA_STATUS_SUCCESS);
  // A transform "auto" may take: kernel size 3 and a predicted fp32 error within its budget.
  bool listed = false;
  for (int i = 0; i < nova_transform_count(); ++i) {
    nova_transform_info_t info;
    REQUIRE(nova_transform_info(i, &info) == NOVA_STATUS_SUCCESS);
    if (std::strcmp(info.name, first) != 0) continue;
    listed = true;
    CHECK(info.r == 3);
    CHECK(0.7 * 0x1p-24 * info.amp2d <= 1e-5);
  }
  CHECK(listed);
  const char* again = nullptr;
  REQUIRE(nova_conv_transform_name(handle.get(), &d, &again) == NOVA_STATUS_SUCCESS);
  CHECK(again == first);  // kept for the shape, not timed again

  // The forward pass is that transform's, bit for bit.
  Buffers tuned(d), named(d);
  REQUIRE(forward(handle.get(), d, tuned) == NOVA_STATUS_SUCCESS);
  nova::ConvDesc by_name = d;
  by_name.transform = first;
  REQUIRE(forward(handle.get(), by_name, named) == NOVA_STATUS_SUCCESS);
  CHECK(tuned.y == named.y);

  // Bad descriptors keep their statuses.
  d.stride = 2;
  CHECK(nova_conv_transform_name(handle.get(), &d, &again) == NOVA_STATUS_NOT_SUPPORTED);
  d.stride = 1;
  d.algorithm = NOVA_ALGO_FUSED;  // no fused kernel on the CPU
  CHECK(nova_conv_transform_name(handle.get(), &d, &again) == NOVA_STATUS_NOT_SUPPORTED);
}

TEST_CASE("a named transform predicted beyond the dtype's error budget runs only when allowed") {
  nova::Handle handle;
  nova::ConvDesc d = small_desc();
  Buffers b(d);
  // f8x3_standard: amp2D 5e5, predicted fp32 error 0.02 (measured 9 %), far beyond fp32's 1e-5.
  d.transform = "f8x3_standard";
  CHECK(forward(handle.get(), d, b) == NOVA_STATUS_INACCURATE);
  CHECK_THAT(std::string(nova_status_string(NOVA_STATUS_INACCURATE)), Catch::Contains("allow_inaccurate"));
  d.allow_inaccurate = 1;
  CHECK(forward(handle.get(), d, b) == NOVA_STATUS_SUCCESS);
  // Within the budget a name needs nothing: f4x3_nova's fp16 prediction is 3.8e-3.
  d.transform = "f4x3_nova";
  d.allow_inaccurate = 0;
  d.dtype = NOVA_DTYPE_FP16;
  std::vector<uint16_t> x16(b.x.size(), 0x3c00), y16(b.y.size());  // ones in fp16
  CHECK(nova_conv_forward(handle.get(), &d, x16.data(), b.w.data(), 1, nullptr, 0, y16.data(), nullptr, 0) ==
        NOVA_STATUS_SUCCESS);
}

TEST_CASE("max_error sets the error budget: auto picks within it, names beyond it are refused") {
  nova::Handle handle;
  nova::ConvDesc d = small_desc();
  d.n = 2, d.c = 64, d.k = 64, d.h = d.w = 56;
  d.dtype = NOVA_DTYPE_FP16;
  const auto predicted = [](const char* name) {
    for (int i = 0; i < nova_transform_count(); ++i) {
      nova_transform_info_t info;
      nova::check(nova_transform_info(i, &info));
      if (std::strcmp(info.name, name) == 0) return 0.7 * 0x1p-11 * info.amp2d;
    }
    return HUGE_VAL;
  };
  const char* loose = nullptr;
  REQUIRE(nova_conv_transform_name(handle.get(), &d, &loose) == NOVA_STATUS_SUCCESS);
  REQUIRE(predicted(loose) > 3e-3);  // the default fp16 budget lets auto take a less accurate tile
  d.max_error = 3e-3;
  const char* tight = nullptr;
  REQUIRE(nova_conv_transform_name(handle.get(), &d, &tight) == NOVA_STATUS_SUCCESS);
  CHECK(predicted(tight) <= 3e-3);
  CHECK(std::string(tight) != loose);
  d.transform = loose;
  CHECK(nova_conv_transform_name(handle.get(), &d, &tight) == NOVA_STATUS_INACCURATE);
  d.transform = "auto";
  d.max_error = 1e-6;  // no fp16 transform is that accurate
  CHECK(nova_conv_transform_name(handle.get(), &d, &tight) == NOVA_STATUS_UNKNOWN_TRANSFORM);
  for (const double bad : {-1e-3, std::nan(""), HUGE_VAL}) {
    d.max_error = bad;
    CHECK(nova_conv_transform_name(handle.get(), &d, &tight) == NOVA_STATUS_INVALID_ARGUMENT);
  }
}

TEST_CASE("bf16's budget: auto never takes an F(6,3) set, names beyond it are refused, max_error moves it") {
  nova::Handle handle;
  const auto transform = [&](const nova::ConvDesc& d) {
    const char* name = nullptr;
    REQUIRE(nova_conv_transform_name(handle.get(), &d, &name) == NOVA_STATUS_SUCCESS);
    const nova::kernels::TransformEntry* t = nova::kernels::find_transform(name);
    REQUIRE(t != nullptr);
    return t;
  };
  const auto predicted_bf16 = [](const nova::kernels::TransformEntry* t) { return 0.7 * 0x1p-8 * t->amp2d; };
  nova::ConvDesc d = small_desc();
  // From shallow and large (fp16 takes F(6,3) there) to deep and small, in both layouts.
  for (const auto& [n, c, hw] : {std::tuple{8, 16, 112}, {2, 64, 56}, {1, 128, 28}, {1, 512, 7}})
    for (const nova_layout_t layout : {NOVA_LAYOUT_NCHW, NOVA_LAYOUT_NHWC}) {
      d.n = n, d.c = d.k = c, d.h = d.w = hw, d.layout = layout;
      d.dtype = NOVA_DTYPE_BF16;
      const nova::kernels::TransformEntry* t = transform(d);
      INFO(n << "x" << c << "@" << hw << (layout == NOVA_LAYOUT_NHWC ? " NHWC: " : " NCHW: ") << t->name);
      CHECK(t->m <= 4);
      CHECK(predicted_bf16(t) <= 3e-2);
    }
  d.n = 8, d.c = d.k = 16, d.h = d.w = 112;
  d.dtype = NOVA_DTYPE_FP16;
  REQUIRE(transform(d)->m == 6);
  d.dtype = NOVA_DTYPE_BF16;
  d.max_error = 6e-2;  // admits the most accurate F(6,3) set (5.6e-2)
  CHECK(transform(d)->m == 6);
  d.max_error = 1e-2;  // only F(2,3) (4.6e-3); every F(4,3) set predicts more than 1.2e-2
  CHECK(transform(d)->m == 2);
  d.max_error = 1e-3;
  const char* name = nullptr;
  CHECK(nova_conv_transform_name(handle.get(), &d, &name) == NOVA_STATUS_UNKNOWN_TRANSFORM);
  d.max_error = 0;
  // The bf16 searches' names (aliases of the fp16 optima): F(4,3) fits the budget, F(6,3) does not
  // (5.6e-2), nor does f4x3_nova (3.1e-2).
  d.transform = "f4x3_bf16";
  CHECK(transform(d)->name == std::string("f4x3_fp16"));
  for (const auto& [beyond, canonical] : {std::pair{"f6x3_bf16", "f6x3_fp16"}, {"f4x3_nova", "f4x3_nova"}}) {
    d.transform = beyond;
    d.allow_inaccurate = 0;
    CHECK(nova_conv_transform_name(handle.get(), &d, &name) == NOVA_STATUS_INACCURATE);
    d.allow_inaccurate = 1;
    CHECK(transform(d)->name == std::string(canonical));
  }
}

TEST_CASE("an alias runs its transform: same kernels, same bits, the canonical name reported") {
  nova::Handle handle;
  nova::ConvDesc d = small_desc();
  Buffers by_alias(d), by_name(d);
  for (size_t i = 0; i < by_alias.x.size(); ++i) by_alias.x[i] = by_name.x[i] = static_cast<float>(i % 7) - 3.0f;
  d.transform = "f6x3_fp16_dyadic";
  CHECK(handle.transform_name(d) == "f6x3_fp16");
  REQUIRE(forward(handle.get(), d, by_alias) == NOVA_STATUS_SUCCESS);
  d.transform = "f6x3_fp16";
  REQUIRE(forward(handle.get(), d, by_name) == NOVA_STATUS_SUCCESS);
  CHECK(std::memcmp(by_alias.y.data(), by_name.y.data(), by_name.y.size() * sizeof(float)) == 0);
  for (int i = 0; i < nova_transform_count(); ++i) {  // listed once, under its own name
    nova_transform_info_t info{};
    REQUIRE(nova_transform_info(i, &info) == NOVA_STATUS_SUCCESS);
    CHECK(std::string(info.name) != "f6x3_fp16_dyadic");
  }
}
