// libnova_runtime on the GPU against the FP64 reference, with assertions (ctest label `gpu`): every
// path (AUTO, THREE_PASS, FUSED) x layout x dtype x epilogue on shapes with border tiles, within
// 1.5x the precision model and with no non-finite or unwritten output; the statuses of misaligned
// tensors and of a workspace too small; and work that stays on the handle's own stream. Without a
// GPU every test prints SKIP (ctest reports it skipped). tools/device/run_gpu_tests.sh runs them on
// NVIDIA, tools/amd/mi300x.sh on AMD (the same source: GPU calls under HIP's names through
// nova/kernels/hip_compat.h).
#include "float16.hpp"
#include "nova/kernels/hip_compat.h"
#include "nova/jit.hpp"
#include "nova/runtime.hpp"
#include "support/dtype_cases.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

namespace {

using nova::runtime::Float16Codec;
using nova::runtime::float16_codec;
using nova::test::dtype_case;
using nova::test::DtypeCase;
using nova::test::kDtypes;

size_t element_bytes(nova_dtype_t dtype) { return float16_codec(dtype) ? 2 : 4; }

bool have_gpu() {
  int devices = 0;
  return hipGetDeviceCount(&devices) == hipSuccess && devices > 0;
}

#define NOVA_REQUIRE_GPU()        \
  if (!have_gpu()) {              \
    std::puts("SKIP: no GPU");    \
    return;                       \
  }

void check_gpu(hipError_t e) {
  INFO(hipGetErrorString(e));
  REQUIRE(e == hipSuccess);
}

class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) { check_gpu(hipMalloc(&ptr_, bytes ? bytes : 1)); }
  ~DeviceBuffer() { (void)hipFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <class T = void>
  T* get() const { return static_cast<T*>(ptr_); }
  size_t bytes() const { return bytes_; }
  void upload(const void* host) { check_gpu(hipMemcpy(ptr_, host, bytes_, hipMemcpyHostToDevice)); }
  void download(void* host) const { check_gpu(hipMemcpy(host, ptr_, bytes_, hipMemcpyDeviceToHost)); }
  void poison() { check_gpu(hipMemset(ptr_, 0xff, bytes_)); }  // NaN in fp16, bf16 and fp32

 private:
  void* ptr_ = nullptr;
  size_t bytes_;
};

struct Shape {
  int n, c, k, hw, pad;
  int r = 3;
  int out() const { return hw + 2 * pad - r + 1; }
};

// One convolution's inputs on the host (x representable in bf16 and fp16 alike, so that every
// dtype sees the same values), as device tensors in every layout and dtype, and its FP64 references.
class Problem {
 public:
  Problem(const Shape& s, float x_scale, unsigned seed) : s_(s) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_real_distribution<float> flat(-1.0f, 1.0f);
    x_.resize(static_cast<size_t>(s.n) * s.c * s.hw * s.hw);
    // bf16's 8 bits fit fp16's 11 from fp16's smallest normal (2^-14) up; below it, zero.
    const Float16Codec* bf16 = float16_codec(NOVA_DTYPE_BF16);
    for (auto& v : x_) {
      v = bf16->decode(bf16->encode(x_scale * (x_scale == 1.0f ? normal(rng) : flat(rng))));
      if (std::fabs(v) < 0x1p-14f) v = 0.0f;
    }
    w_.resize(static_cast<size_t>(s.k) * s.c * s.r * s.r);
    for (auto& v : w_) v = normal(rng) / std::sqrt(static_cast<float>(s.r * s.r * s.c));
    bias_.resize(static_cast<size_t>(s.k));
    for (auto& v : bias_) v = 0.5f * normal(rng);
    weights_ = std::make_unique<DeviceBuffer>(w_.size() * sizeof(float));
    weights_->upload(w_.data());
    bias_d_ = std::make_unique<DeviceBuffer>(bias_.size() * sizeof(float));
    bias_d_->upload(bias_.data());
    for (const bool epilogue : {false, true}) {
      nova::ConvDesc d = desc(NOVA_DTYPE_FP32, NOVA_LAYOUT_NCHW, "auto");
      std::vector<float> y32(outputs());
      nova::check(nova_conv_reference(&d, x_.data(), w_.data(), epilogue ? bias_.data() : nullptr, epilogue, y32.data()));
      reference_[epilogue] = std::vector<double>(y32.begin(), y32.end());
    }
    // nova_conv_reference accumulates in double and rounds to fp32 at the end: far below any model.
  }

  size_t outputs() const {
    const auto out = static_cast<size_t>(s_.out());
    return static_cast<size_t>(s_.n) * s_.k * out * out;
  }
  nova::ConvDesc desc(nova_dtype_t dtype, nova_layout_t layout, const char* transform) const {
    nova::ConvDesc d;
    d.n = s_.n, d.c = s_.c, d.k = s_.k, d.h = d.w = s_.hw, d.pad = s_.pad, d.kernel_size = s_.r;
    d.dtype = dtype, d.layout = layout, d.transform = transform;
    return d;
  }
  // x on the device in the layout and dtype asked for.
  std::unique_ptr<DeviceBuffer> input(nova_dtype_t dtype, nova_layout_t layout) const {
    const std::vector<float> values = layout == NOVA_LAYOUT_NHWC ? relayout(x_, s_.c, s_.hw, true) : x_;
    return upload(values, dtype);
  }
  const float* weights() const { return weights_->get<float>(); }
  const float* bias() const { return bias_d_->get<float>(); }
  const std::vector<double>& reference(bool epilogue) const { return reference_[epilogue]; }

  // NCHW -> NHWC (or back, with `to_nhwc` false) on the host, for images of `channels` channels
  // and hw x hw pixels.
  static std::vector<float> relayout(const std::vector<float>& v, int channels, int hw, bool to_nhwc) {
    std::vector<float> out(v.size());
    const size_t plane = static_cast<size_t>(hw) * hw;
    for (size_t i = 0; i < v.size(); ++i) {  // i indexes NCHW
      const size_t img = i / (plane * channels), c = i / plane % channels, p = i % plane;
      const size_t nhwc = (img * plane + p) * channels + c;
      (to_nhwc ? out[nhwc] : out[i]) = to_nhwc ? v[i] : v[nhwc];
    }
    return out;
  }

  static std::unique_ptr<DeviceBuffer> upload(const std::vector<float>& values, nova_dtype_t dtype) {
    auto buffer = std::make_unique<DeviceBuffer>(values.size() * element_bytes(dtype));
    if (const Float16Codec* codec = float16_codec(dtype)) {
      std::vector<uint16_t> bits(values.size());
      for (size_t i = 0; i < values.size(); ++i) bits[i] = codec->encode(values[i]);
      buffer->upload(bits.data());
    } else {
      buffer->upload(values.data());
    }
    return buffer;
  }

  // y from the device (any layout, dtype) as NCHW floats; NaN stays NaN.
  std::vector<float> download(const DeviceBuffer& y, nova_dtype_t dtype, nova_layout_t layout) const {
    std::vector<float> values(outputs());
    if (const Float16Codec* codec = float16_codec(dtype)) {
      std::vector<uint16_t> bits(values.size());
      y.download(bits.data());
      for (size_t i = 0; i < values.size(); ++i) values[i] = codec->decode(bits[i]);
    } else {
      y.download(values.data());
    }
    return layout == NOVA_LAYOUT_NHWC ? relayout(values, s_.k, s_.out(), false) : values;
  }

 private:
  Shape s_;
  std::vector<float> x_, w_, bias_;
  std::unique_ptr<DeviceBuffer> weights_, bias_d_;
  std::vector<double> reference_[2];
};

struct Error {
  double rel_l2;
  long long non_finite;  // an unwritten (poisoned) output counts here
};

Error compare(const std::vector<float>& y, const std::vector<double>& ref) {
  double e2 = 0, r2 = 0;
  long long bad = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    if (!std::isfinite(y[i])) {
      ++bad;
      continue;
    }
    e2 += (y[i] - ref[i]) * (y[i] - ref[i]);
    r2 += ref[i] * ref[i];
  }
  return {std::sqrt(e2 / r2), bad};
}

// The precision model (docs/design.md §6): V and U stored at unit roundoff u (fp16 or bf16, with fp32
// arithmetic and accumulation around them) give 0.7 u amp2D. In fp32 every stage rounds at u and the
// GEMM's sum over C dominates: a sum of C products rounds like a random walk, so its part grows as
// sqrt(C / 3) and adds to the storage part in quadrature (measured 0.76x this at C = 64 and C = 512,
// docs/runtime.md). All add the output's own rounding (u / sqrt(3), relative RMS), which the storage
// model leaves out.
double predicted_error(double amp2d, nova_dtype_t dtype, int channels) {
  const double u = dtype_case(dtype).u;
  const double storage = 0.7 * u * amp2d * (dtype == NOVA_DTYPE_FP32 ? std::sqrt(1.0 + channels / 3.0) : 1.0);
  return std::sqrt(storage * storage + u * u / 3.0);
}

struct Transform {
  std::string name;
  double amp2d;  // 0 for "auto"
};

// The transforms "auto" may take for the dtype (r = 3, predicted error within the budget).
std::vector<Transform> transforms_within_budget(nova_dtype_t dtype) {
  const DtypeCase& d = dtype_case(dtype);
  std::vector<Transform> out;
  for (int i = 0; i < nova_transform_count(); ++i) {
    nova_transform_info_t info{};
    nova::check(nova_transform_info(i, &info));
    if (info.r == 3 && 0.7 * d.u * info.amp2d <= d.budget) out.push_back({info.name, info.amp2d});
  }
  return out;
}

double amp2d_of(const std::string& name) {
  for (int i = 0; i < nova_transform_count(); ++i) {
    nova_transform_info_t info{};
    nova::check(nova_transform_info(i, &info));
    if (info.name == name) return info.amp2d;
  }
  FAIL("no transform " << name);
  return 0;
}

struct Run {
  nova_status_t status;
  Error error;
  bool fused;
  std::string transform;  // what ran
  double model = 0;       // the library's predicted error of what ran (nova_conv_predicted_error)
  int kernel = 0;         // the profile's `fused`: 0 3-pass, 1 mma.sync (or MFMA), 2 wgmma
  bool tc_input = false;  // the profile's `fused_input`: the wgmma kernel's input transform on the tensor cores
};

// The library's precision model for what `d` runs: this file's predicted_error() of its transform,
// sqrt(3/2) x in the storage part where the 3-pass pipeline stores M in 16 bits.
double library_model(nova_handle_t h, const nova::ConvDesc& d) {
  double model = 0;
  nova::check(nova_conv_predicted_error(h, &d, &model));
  const char* name = nullptr;
  nova::check(nova_conv_transform_name(h, &d, &name));
  const double wide = predicted_error(amp2d_of(name), d.dtype, static_cast<int>(d.c));
  CHECK(model >= wide * (1 - 1e-12));
  CHECK(model <= wide * std::sqrt(1.5) * (1 + 1e-12));
  return model;
}

// One forward on poisoned outputs; profile() tells which path ran, forward() is what users call:
// both are run and must agree bit for bit.
Run run(nova_handle_t h, const Problem& p, nova::ConvDesc d, bool epilogue) {
  const auto x = p.input(d.dtype, d.layout);
  const size_t element = element_bytes(d.dtype);
  DeviceBuffer y(p.outputs() * element), y_profiled(p.outputs() * element);
  y.poison();
  y_profiled.poison();
  const float* bias = epilogue ? p.bias() : nullptr;
  Run r{nova_conv_forward(h, &d, x->get(), p.weights(), 1, bias, epilogue, y.get(), nullptr, 0), {}, false, {}};
  if (r.status != NOVA_STATUS_SUCCESS) return r;
  nova_stage_profile_t profile{};
  REQUIRE(nova_conv_profile(h, &d, x->get(), p.weights(), 1, bias, epilogue, y_profiled.get(), nullptr, 0, &profile) ==
          NOVA_STATUS_SUCCESS);
  check_gpu(hipDeviceSynchronize());
  const std::vector<float> out = p.download(y, d.dtype, d.layout), profiled = p.download(y_profiled, d.dtype, d.layout);
  CHECK(std::memcmp(out.data(), profiled.data(), out.size() * sizeof(float)) == 0);
  const char* name = nullptr;
  nova::check(nova_conv_transform_name(h, &d, &name));
  return {r.status, compare(out, p.reference(epilogue)), profile.fused != 0, name, library_model(h, d), profile.fused,
          profile.fused_input != 0};
}

// Border tiles everywhere (sizes not multiples of any tile), K not a multiple of a fused block's
// 16 (48, 80), batch > 1, every fused launch variant (C = 32 and 64: several tile groups a block;
// C = 128: two K blocks a warp; C = 130 and 520: chunks of the channels, with K beyond a block's
// slice of 64), padding 0 to 2, and every channel-count class: C below 16 and odd (3), not a
// multiple of 16 (24, 130), beyond 128 and 512, K odd (33) and not a multiple of 16 (20, 40).
const Shape kShapes[] = {{3, 32, 48, 29, 1}, {2, 128, 80, 23, 1}, {1, 64, 16, 9, 2}, {2, 128, 128, 30, 1},
                         {2, 24, 20, 17, 0}, {2, 3, 64, 19, 1},  {1, 130, 72, 13, 1}, {1, 520, 40, 7, 1},
                         {2, 32, 33, 11, 1}};

// Whether the fused kernel takes this shape and transform ("auto": any it can fuse), as runtime.h
// documents it: fp16 or bf16 and tiles up to 6 x 6 (F(2,3), F(4,3)), any C and K.
bool fusable(nova_dtype_t dtype, const std::string& transform) {
  const bool tile_fits = transform == "auto" || transform.rfind("f2x3_", 0) == 0 || transform.rfind("f4x3_", 0) == 0;
  return dtype != NOVA_DTYPE_FP32 && tile_fits;
}


}  // namespace

TEST_CASE("every path, layout, dtype and epilogue matches FP64 within 1.5x the precision model", "[gpu]") {
  NOVA_REQUIRE_GPU();
  nova::Handle gpu(NOVA_BACKEND_GPU);
  int runs = 0, fused_runs = 0;
  double worst = 0;
  for (const Shape& s : kShapes) {
    const Problem p(s, 1.0f, 31u + static_cast<unsigned>(s.hw));
    for (const DtypeCase& dtype_of_run : kDtypes) {
      const nova_dtype_t dtype = dtype_of_run.dtype;
      std::vector<Transform> candidates = transforms_within_budget(dtype);
      candidates.insert(candidates.begin(), Transform{"auto", 0});
      for (const nova_layout_t layout : {NOVA_LAYOUT_NCHW, NOVA_LAYOUT_NHWC})
        for (const nova_algo_t algorithm : {NOVA_ALGO_AUTO, NOVA_ALGO_THREE_PASS, NOVA_ALGO_FUSED})
          for (const Transform& t : candidates)
            for (const bool epilogue : {false, true}) {
              nova::ConvDesc d = p.desc(dtype, layout, t.name.c_str());
              d.algorithm = algorithm;
              INFO("N,C,K,HW,pad " << s.n << "," << s.c << "," << s.k << "," << s.hw << "," << s.pad << " "
                                   << dtype_of_run.name << " "
                                   << (layout == NOVA_LAYOUT_NHWC ? "NHWC " : "NCHW ") << "algorithm " << algorithm
                                   << " " << t.name << (epilogue ? " +bias+ReLU" : ""));
              const Run r = run(gpu.get(), p, d, epilogue);
              if (algorithm == NOVA_ALGO_FUSED && !fusable(dtype, t.name)) {
                CHECK(r.status == NOVA_STATUS_NOT_SUPPORTED);
                continue;
              }
              REQUIRE(r.status == NOVA_STATUS_SUCCESS);
              if (algorithm == NOVA_ALGO_FUSED) CHECK(r.fused);
              if (algorithm == NOVA_ALGO_THREE_PASS) CHECK_FALSE(r.fused);
              const double model = r.model;
              INFO("ran " << r.transform << (r.fused ? " fused" : " 3-pass") << ": rel L2 " << r.error.rel_l2
                          << ", model " << model);
              CHECK(r.error.non_finite == 0);
              CHECK(r.error.rel_l2 <= 1.5 * model);
              worst = std::max(worst, r.error.rel_l2 / model);
              ++runs, fused_runs += r.fused;
            }
    }
  }
  std::printf("gpu paths: %d runs (%d fused), worst error %.2f x the precision model\n", runs, fused_runs, worst);
  CHECK(fused_runs > 0);
}

// Where sqrt(3/2) x 0.7 u amp2D fits the budget (the default budget, every transform auto takes) the
// 3-pass pipeline stores M in the 16-bit storage type, below that in fp32: the workspace differs by
// half of M's fp32 bytes, the narrow M's error is the larger (the error lab: 1.216-1.227x,
// docs/results/narrow_product/errlab_product.txt), and each stays within 1.5x its own prediction.
TEST_CASE("the 3-pass pipeline keeps M in 16 bits within the budget and in fp32 below it", "[gpu]") {
  NOVA_REQUIRE_GPU();
  nova::Handle gpu(NOVA_BACKEND_GPU);
  const Problem p({2, 64, 48, 30, 1}, 1.0f, 5u);
  const long long product_elements = 36LL * 48 * 2 * 8 * 8;  // F(4,3): 6 x 6 domain, K, 2 images of 8 x 8 tiles
  for (const DtypeCase& dtype : kDtypes) {
    if (dtype.dtype == NOVA_DTYPE_FP32) continue;
    for (const nova_layout_t layout : {NOVA_LAYOUT_NCHW, NOVA_LAYOUT_NHWC}) {
      INFO(dtype.name << (layout == NOVA_LAYOUT_NHWC ? " NHWC" : " NCHW"));
      nova::ConvDesc d = p.desc(dtype.dtype, layout, "f4x3_fp16");
      d.algorithm = NOVA_ALGO_THREE_PASS;
      const Run narrow = run(gpu.get(), p, d, true);
      const size_t narrow_bytes = gpu.workspace_size(d);
      d.max_error = 0.7 * dtype.u * amp2d_of("f4x3_fp16");  // fits the transform, not a 16-bit M
      const Run wide = run(gpu.get(), p, d, true);
      const size_t wide_bytes = gpu.workspace_size(d);
      REQUIRE(narrow.status == NOVA_STATUS_SUCCESS);
      REQUIRE(wide.status == NOVA_STATUS_SUCCESS);
      CHECK_FALSE((narrow.fused || wide.fused));
      CHECK(wide_bytes - narrow_bytes == static_cast<size_t>(2 * product_elements));
      CHECK(narrow.model > 1.2 * wide.model);
      INFO("rel L2 " << narrow.error.rel_l2 << " (16-bit M), " << wide.error.rel_l2 << " (fp32 M)");
      CHECK(narrow.error.non_finite + wide.error.non_finite == 0);
      CHECK(narrow.error.rel_l2 <= 1.5 * narrow.model);
      CHECK(wide.error.rel_l2 <= 1.5 * wide.model);
      CHECK(narrow.error.rel_l2 > wide.error.rel_l2);
    }
  }
}

TEST_CASE("fp16 and bf16 inputs up to 8 in magnitude stay finite and within the model", "[gpu]") {
  NOVA_REQUIRE_GPU();
  nova::Handle gpu(NOVA_BACKEND_GPU);
  const Problem p({4, 64, 64, 56, 1}, 8.0f, 99u);  // uniform in [-8, 8]
  for (const nova_dtype_t dtype : {NOVA_DTYPE_FP16, NOVA_DTYPE_BF16})
    for (const Transform& t : transforms_within_budget(dtype)) {
      INFO(dtype_case(dtype).name << " " << t.name);
      const Run r = run(gpu.get(), p, p.desc(dtype, NOVA_LAYOUT_NCHW, t.name.c_str()), false);
      REQUIRE(r.status == NOVA_STATUS_SUCCESS);
      CHECK(r.error.non_finite == 0);
      CHECK(r.error.rel_l2 <= 1.5 * r.model);
    }
}

// The mma.sync fused kernel with its domain rows split over 1, 2, 4 and 8 warps (fused_split_launch;
// the runtime's cost model picks one per forward, NOVA_FUSED_ROW_SPLIT forces it, NOVA_FUSED_KERNEL=mma
// keeps NCHW off the wgmma kernel): every split sums its warps' partial outputs right, on a shape
// whose K fills whole slices and one whose K (20) and C (24) do not, both layouts, fp16 and bf16.
// Unsplit, the NHWC shapes with K = 64 and 120 store through the whole block (fused_store_block), the
// second in two passes of the block's warps with clipped border tiles.
TEST_CASE("the fused kernel with its rows split over every warp count matches FP64", "[gpu]") {
  NOVA_REQUIRE_GPU();
  REQUIRE(setenv("NOVA_FUSED_KERNEL", "mma", 1) == 0);
  for (const char* split : {"1", "2", "4", "8"}) {
    REQUIRE(setenv("NOVA_FUSED_ROW_SPLIT", split, 1) == 0);
    nova::Handle gpu(NOVA_BACKEND_GPU);  // reads both when it is made
    for (const Shape& s : {Shape{1, 64, 64, 24, 1}, Shape{2, 32, 120, 22, 1}, Shape{2, 24, 20, 17, 0}}) {
      const Problem p(s, 1.0f, 11u);
      for (const nova_dtype_t dtype : {NOVA_DTYPE_FP16, NOVA_DTYPE_BF16})
        for (const nova_layout_t layout : {NOVA_LAYOUT_NHWC, NOVA_LAYOUT_NCHW})
          for (const char* transform : {"f4x3_standard", "f2x3_standard"}) {
            nova::ConvDesc d = p.desc(dtype, layout, transform);
            d.algorithm = NOVA_ALGO_FUSED;
            const Run r = run(gpu.get(), p, d, true);
            INFO("split " << split << ", C " << s.c << " K " << s.k << " " << dtype_case(dtype).name
                          << (layout == NOVA_LAYOUT_NHWC ? " NHWC " : " NCHW ") << transform << ": rel L2 " << r.error.rel_l2);
            REQUIRE(r.status == NOVA_STATUS_SUCCESS);
            CHECK(r.fused);
            CHECK(r.error.non_finite == 0);
            CHECK(r.error.rel_l2 <= 1.5 * predicted_error(amp2d_of(transform), dtype, s.c));
          }
    }
  }
  REQUIRE(unsetenv("NOVA_FUSED_ROW_SPLIT") == 0);
  REQUIRE(unsetenv("NOVA_FUSED_KERNEL") == 0);
}

// The wgmma kernel's input transform on the tensor cores (fused_wg_tc_input: F(4,3) with B^T (x) B^T a sum of
// one or two tables of the storage type, NHWC fp16 and bf16 with C = 64 and K <= 64, groups of 16), the kernel
// forced (NOVA_FUSED_KERNEL=wgmma): border tiles (pad 2), blocks that take two groups or three (4,312 tiles: 270
// groups of 16 on at most 132 SMs, on an H200 balanced to 359 groups of 12 and a last one of 4, fused_wg_group_size;
// 1,125 tiles: one wave of 93 groups of 12 and a last one of 9), K = 64 (the copy engine's stores of tile rows) and K
// below it, with and without bias and ReLU, against FP64; tile rows of 15 tiles (57 x 57, pad 2: a patch copy a tile)
// and of 14 (56 x 56: a copy a pair of neighbours, fused_wg_tc_copy_tiles). Grids whose groups of 8 fit one wave
// (128 and 12 tiles, pads 1 and 0) take those on the FP path (fused_wg_wave_tiles).
// f4x3_standard and f4x3_fp16_tc take one table; the accurate f4x3_fp16_dyadic two, and only where the grid has at
// least two groups an SM (of these shapes the 270 groups on an H200's 132 SMs); f4x3_fp16 (in neither type a sum of two)
// takes the FP path of the same kernel on the same shapes. The profile says which path ran. Off sm_90 (no
// wgmma kernel) every run takes the mma.sync kernel.
TEST_CASE("the wgmma kernel's input transform on the tensor cores matches FP64", "[gpu]") {
  NOVA_REQUIRE_GPU();
  REQUIRE(setenv("NOVA_FUSED_KERNEL", "wgmma", 1) == 0);
  nova::Handle gpu(NOVA_BACKEND_GPU);  // reads it when it is made
  int multiprocessors = 0;
  check_gpu(hipDeviceGetAttribute(&multiprocessors, hipDeviceAttributeMultiprocessorCount, 0));
  for (const Shape& s : {Shape{2, 64, 64, 30, 1}, Shape{5, 64, 40, 57, 2}, Shape{3, 64, 64, 9, 0}, Shape{22, 64, 16, 56, 1}}) {
    const long long tiles = static_cast<long long>(s.n) * ((s.out() + 3) / 4) * ((s.out() + 3) / 4);
    const bool groups_of_16 = tiles > 8LL * multiprocessors, two_groups_an_sm = (tiles + 15) / 16 >= 2LL * multiprocessors;
    const Problem p(s, 1.0f, 17u + static_cast<unsigned>(s.hw));
    for (const nova_dtype_t dtype : {NOVA_DTYPE_FP16, NOVA_DTYPE_BF16})
      for (const std::string transform : {"f4x3_standard", "f4x3_fp16_tc", "f4x3_fp16_dyadic", "f4x3_fp16"})
        for (const bool epilogue : {false, true}) {
          nova::ConvDesc d = p.desc(dtype, NOVA_LAYOUT_NHWC, transform.c_str());
          d.algorithm = NOVA_ALGO_FUSED;
          const Run r = run(gpu.get(), p, d, epilogue);
          INFO("N " << s.n << " K " << s.k << " HW " << s.hw << " pad " << s.pad << " " << transform
                    << (dtype == NOVA_DTYPE_BF16 ? " bf16" : " fp16") << (epilogue ? " +bias+ReLU" : "") << ": rel L2 "
                    << r.error.rel_l2);
          REQUIRE(r.status == NOVA_STATUS_SUCCESS);
          CHECK(r.fused);
          const bool tables = transform == "f4x3_standard" || transform == "f4x3_fp16_tc" ||
                              (transform == "f4x3_fp16_dyadic" && two_groups_an_sm);
          CHECK(r.tc_input == (r.kernel == 2 && groups_of_16 && tables));
          CHECK(r.error.non_finite == 0);
          CHECK(r.error.rel_l2 <= 1.5 * predicted_error(amp2d_of(transform), dtype, s.c));
        }
  }
  REQUIRE(unsetenv("NOVA_FUSED_KERNEL") == 0);
}

// On an sm_90 GPU the two layouts of this shape run different fused kernels (wgmma for NCHW, mma.sync
// for NHWC) whose filters have different element orders: the handle's filter cache must keep them
// apart although the weights, transform and sizes are the same.
TEST_CASE("each fused kernel gets its own filter order from the handle's cache", "[gpu]") {
  NOVA_REQUIRE_GPU();
  nova::Handle gpu(NOVA_BACKEND_GPU);
  const Problem p({1, 64, 64, 28, 1}, 1.0f, 4u);
  for (const nova_layout_t layout : {NOVA_LAYOUT_NCHW, NOVA_LAYOUT_NHWC, NOVA_LAYOUT_NCHW}) {
    nova::ConvDesc d = p.desc(NOVA_DTYPE_FP16, layout, "f4x3_fp16");
    d.algorithm = NOVA_ALGO_FUSED;
    const Run r = run(gpu.get(), p, d, true);
    INFO((layout == NOVA_LAYOUT_NHWC ? "NHWC" : "NCHW") << ": rel L2 " << r.error.rel_l2);
    REQUIRE(r.status == NOVA_STATUS_SUCCESS);
    CHECK(r.error.non_finite == 0);
    CHECK(r.error.rel_l2 <= 1.5 * predicted_error(amp2d_of("f4x3_fp16"), NOVA_DTYPE_FP16, 64));
  }
}

// NHWC: the fused kernel's channel-pair loads and 16-byte stores need aligned x and y; NCHW images
// are read and written element by element, so any 2-byte boundary serves.
TEST_CASE("misaligned tensors on the fused path get their status and leave the device healthy", "[gpu]") {
  NOVA_REQUIRE_GPU();
  nova::Handle gpu(NOVA_BACKEND_GPU);
  const Problem p({1, 64, 64, 28, 1}, 1.0f, 3u);
  for (const nova_layout_t layout : {NOVA_LAYOUT_NHWC, NOVA_LAYOUT_NCHW}) {
    nova::ConvDesc d = p.desc(NOVA_DTYPE_FP16, layout, "auto");
    d.algorithm = NOVA_ALGO_FUSED;
    const auto x = p.input(NOVA_DTYPE_FP16, layout);
    DeviceBuffer shifted_x(x->bytes() + 16), y(p.outputs() * 2 + 16);
    check_gpu(hipMemcpy(shifted_x.get<char>() + 2, x->get(), x->bytes(), hipMemcpyDeviceToDevice));
    const nova_status_t expected = layout == NOVA_LAYOUT_NHWC ? NOVA_STATUS_MISALIGNED : NOVA_STATUS_SUCCESS;
    CHECK(nova_conv_forward(gpu.get(), &d, shifted_x.get<char>() + 2, p.weights(), 1, nullptr, 0, y.get(), nullptr, 0) ==
          expected);
    CHECK(nova_conv_forward(gpu.get(), &d, x->get(), p.weights(), 1, nullptr, 0, y.get<char>() + 2, nullptr, 0) ==
          expected);
    check_gpu(hipDeviceSynchronize());
    const Run r = run(gpu.get(), p, d, false);  // and the next call is right
    CHECK(r.status == NOVA_STATUS_SUCCESS);
    CHECK(r.error.non_finite == 0);
  }
}

TEST_CASE("a workspace too small is refused and nothing is written", "[gpu]") {
  NOVA_REQUIRE_GPU();
  nova::Handle gpu(NOVA_BACKEND_GPU);
  const Problem p({2, 32, 32, 20, 1}, 1.0f, 5u);
  for (const nova_algo_t algorithm : {NOVA_ALGO_THREE_PASS, NOVA_ALGO_FUSED}) {
    const nova::ConvDesc d = [&] {
      nova::ConvDesc desc = p.desc(NOVA_DTYPE_FP16, NOVA_LAYOUT_NCHW, "auto");
      desc.algorithm = algorithm;
      return desc;
    }();
    size_t bytes = 0;
    nova::check(nova_conv_workspace_size(gpu.get(), &d, &bytes));
    if (algorithm == NOVA_ALGO_FUSED) {  // V and M stay on chip, NCHW is read and written in place
      CHECK(bytes == 0);
      continue;
    }
    REQUIRE(bytes > 0);
    const auto x = p.input(NOVA_DTYPE_FP16, NOVA_LAYOUT_NCHW);
    DeviceBuffer workspace(bytes), y(p.outputs() * 2);
    y.poison();
    CHECK(nova_conv_forward(gpu.get(), &d, x->get(), p.weights(), 1, nullptr, 0, y.get(), workspace.get(), bytes - 1) ==
          NOVA_STATUS_WORKSPACE_TOO_SMALL);
    check_gpu(hipDeviceSynchronize());
    const std::vector<float> out = p.download(y, NOVA_DTYPE_FP16, NOVA_LAYOUT_NCHW);
    CHECK(compare(out, p.reference(false)).non_finite == static_cast<long long>(out.size()));
  }
}

TEST_CASE("a handle on its own stream puts all its work there: a forward captures into a CUDA graph", "[gpu]") {
  NOVA_REQUIRE_GPU();
  hipStream_t stream = nullptr;
  check_gpu(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  {
    nova::Handle gpu(NOVA_BACKEND_GPU, stream);
    const Problem p({2, 64, 64, 30, 1}, 1.0f, 7u);
    for (const auto& [dtype, layout, algorithm] :
         {std::tuple{NOVA_DTYPE_FP16, NOVA_LAYOUT_NHWC, NOVA_ALGO_AUTO}, std::tuple{NOVA_DTYPE_FP16, NOVA_LAYOUT_NCHW, NOVA_ALGO_FUSED},
          std::tuple{NOVA_DTYPE_BF16, NOVA_LAYOUT_NHWC, NOVA_ALGO_AUTO},
          std::tuple{NOVA_DTYPE_FP32, NOVA_LAYOUT_NCHW, NOVA_ALGO_THREE_PASS}}) {
      nova::ConvDesc d = p.desc(dtype, layout, "auto");
      d.algorithm = algorithm;
      INFO(dtype_case(dtype).name << (layout == NOVA_LAYOUT_NHWC ? " NHWC " : " NCHW ") << algorithm);
      const auto x = p.input(dtype, layout);
      size_t bytes = 0;
      nova::check(nova_conv_workspace_size(gpu.get(), &d, &bytes));
      DeviceBuffer workspace(bytes), y(p.outputs() * element_bytes(dtype));
      // The first call transforms and caches the filter; the captured one only convolves.
      nova::check(nova_filter_transform(gpu.get(), &d, p.weights(), 1));
      check_gpu(hipStreamSynchronize(stream));
      y.poison();
      // Global capture: a launch on any other stream, a synchronisation or an allocation during it
      // is an error, so a successful capture shows every kernel went to `stream`.
      check_gpu(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal));
      const nova_status_t st =
          nova_conv_forward(gpu.get(), &d, x->get(), p.weights(), 1, p.bias(), 1, y.get(), workspace.get(), bytes);
      hipGraph_t graph = nullptr;
      const hipError_t ended = hipStreamEndCapture(stream, &graph);
      REQUIRE(st == NOVA_STATUS_SUCCESS);
      REQUIRE(ended == hipSuccess);
      size_t nodes = 0;
      check_gpu(hipGraphGetNodes(graph, nullptr, &nodes));
      CHECK(nodes > 0);
      // Nothing ran outside the graph: y is still poisoned until it is launched.
      check_gpu(hipDeviceSynchronize());
      CHECK(compare(p.download(y, dtype, layout), p.reference(true)).non_finite == static_cast<long long>(p.outputs()));
      hipGraphExec_t exec = nullptr;
      check_gpu(hipGraphInstantiateWithFlags(&exec, graph, 0));
      check_gpu(hipGraphLaunch(exec, stream));
      check_gpu(hipStreamSynchronize(stream));
      const Error e = compare(p.download(y, dtype, layout), p.reference(true));
      const char* name = nullptr;
      nova::check(nova_conv_transform_name(gpu.get(), &d, &name));
      CHECK(e.non_finite == 0);
      CHECK(e.rel_l2 <= 1.5 * library_model(gpu.get(), d));
      (void)hipGraphExecDestroy(exec);
      (void)hipGraphDestroy(graph);
    }
  }
  (void)hipStreamDestroy(stream);
}

TEST_CASE("transforms loaded at run time run the 3-pass and fused paths like built-in ones", "[gpu]") {
  NOVA_REQUIRE_GPU();
  // A fresh compile cache: the first forward of each transform compiles its kernels with NVRTC.
  const std::string cache = "/tmp/nova_gpu_test_cache_" + std::to_string(getpid());
  REQUIRE(setenv("NOVA_CACHE_DIR", cache.c_str(), 1) == 0);
  const char* data = std::getenv("NOVA_JIT_DATA");
  REQUIRE(data);
  nova::Handle gpu(NOVA_BACKEND_GPU);
  // F(5,3): 7 x 7 tiles, 3-pass only; F(2,5): r = 5 on 6 x 6 tiles, which the fused kernels take.
  for (const char* file : {"f5x3_fp16.json", "f2x5_fp16.json"}) {
    const nova_transform_info_t t = nova::load_transform(std::string(data) + "/" + file);
#if defined(__HIP_PLATFORM_AMD__) || defined(__HIP__)
    // AMD: no hipRTC path yet (docs/design.md §8): the GPU backend refuses a loaded transform with a
    // status, the CPU backend runs it.
    {
      Shape s{2, 24, 20, 17, 0};
      s.r = t.r;
      const Problem p(s, 1.0f, 7u);
      nova::ConvDesc d = p.desc(NOVA_DTYPE_FP16, NOVA_LAYOUT_NCHW, t.name);
      d.algorithm = NOVA_ALGO_THREE_PASS;
      CHECK(run(gpu.get(), p, d, false).status == NOVA_STATUS_NOT_SUPPORTED);
      std::printf("loaded %s: NOT_SUPPORTED on the AMD GPU backend, as documented (no hipRTC path)\n", t.name);
      continue;
    }
#endif
    const bool fusable_tile = t.m + t.r - 1 <= 6;
    int runs = 0;
    double worst = 0, first_ms = 0;
    for (const Shape& base : {Shape{2, 24, 20, 17, 0}, Shape{3, 32, 48, 29, 1}, Shape{1, 130, 72, 13, 1},
                              Shape{2, 3, 33, 19, 2}}) {
      Shape s = base;
      s.r = t.r;
      s.pad = std::min(s.pad, t.r / 2);
      const Problem p(s, 1.0f, 7u + static_cast<unsigned>(s.hw));
      for (const DtypeCase& dtype_of_run : kDtypes)
        for (const nova_layout_t layout : {NOVA_LAYOUT_NCHW, NOVA_LAYOUT_NHWC})
          for (const nova_algo_t algorithm : {NOVA_ALGO_THREE_PASS, NOVA_ALGO_FUSED})
            for (const bool epilogue : {false, true}) {
              const nova_dtype_t dtype = dtype_of_run.dtype;
              nova::ConvDesc d = p.desc(dtype, layout, t.name);
              d.algorithm = algorithm;
              d.allow_inaccurate = 1;  // bf16: F(5,3)'s model is above bf16's default budget
              INFO(t.name << " N,C,K,HW,pad " << s.n << "," << s.c << "," << s.k << "," << s.hw << "," << s.pad << " "
                          << dtype_of_run.name << (layout == NOVA_LAYOUT_NHWC ? " NHWC" : " NCHW") << " algorithm "
                          << algorithm << (epilogue ? " +bias+ReLU" : ""));
              const auto start = std::chrono::steady_clock::now();
              const Run r = run(gpu.get(), p, d, epilogue);
              if (runs == 0)
                first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
              INFO(nova_jit_last_error());
              if (algorithm == NOVA_ALGO_FUSED && (!fusable_tile || dtype == NOVA_DTYPE_FP32)) {
                CHECK(r.status == NOVA_STATUS_NOT_SUPPORTED);
                continue;
              }
              REQUIRE(r.status == NOVA_STATUS_SUCCESS);
              CHECK(r.fused == (algorithm == NOVA_ALGO_FUSED));
              CHECK(r.transform == t.name);
              const double model = predicted_error(t.amp2d, dtype, s.c);
              INFO("rel L2 " << r.error.rel_l2 << ", model " << model);
              CHECK(r.error.non_finite == 0);
              CHECK(r.error.rel_l2 <= 1.5 * model);
              worst = std::max(worst, r.error.rel_l2 / model);
              ++runs;
            }
    }
    std::printf("loaded %s: %d runs, worst error %.2f x the precision model; first forward (NVRTC compile of the "
                "3-pass kernels included) %.0f ms\n",
                t.name, runs, worst, first_ms);
  }
  std::filesystem::remove_all(cache);
}
