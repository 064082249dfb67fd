// nova-jit: loads transform JSONs into libnova_runtime at run time (libnova_jit), reports what
// loading and compiling took, and runs a convolution with each against the FP64 reference.
#include "nova/jit.hpp"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// One fp16 NCHW convolution with the transform through the CPU backend, against FP64
// direct convolution; true when the relative L2 error is within the precision model's tolerance
// (2 x 0.7 u amp2D + 4 u, docs/design.md §6).
bool run_convolution(const nova_transform_info_t& t) {
  nova::ConvDesc desc;
  desc.n = 2, desc.c = 24, desc.h = 23, desc.w = 29, desc.k = 20;
  desc.kernel_size = t.r;
  desc.pad = t.r / 2;
  desc.dtype = NOVA_DTYPE_FP16;
  desc.transform = t.name;
  desc.allow_inaccurate = 1;
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const auto count = [](int64_t a, int64_t b, int64_t c, int64_t d) { return static_cast<size_t>(a * b * c * d); };
  const int64_t h_out = desc.h + 2 * desc.pad - t.r + 1, w_out = desc.w + 2 * desc.pad - t.r + 1;
  std::vector<float> x(count(desc.n, desc.c, desc.h, desc.w)), w(count(desc.k, desc.c, t.r, t.r));
  for (auto& v : x) v = normal(rng);
  for (auto& v : w) v = normal(rng) / static_cast<float>(t.r * 4);
  std::vector<uint16_t> x16(x.size()), y16(count(desc.n, desc.k, h_out, w_out));
  // fp16 (GCC's _Float16) round trip of the input, so that the reference sees exactly NOVA's values.
  for (size_t i = 0; i < x.size(); ++i) {
    const auto h = static_cast<_Float16>(x[i]);
    std::memcpy(&x16[i], &h, sizeof h);
    x[i] = static_cast<float>(h);
  }
  std::vector<float> y(y16.size()), ref(y16.size());
  nova::ConvDesc ref_desc = desc;
  ref_desc.dtype = NOVA_DTYPE_FP32;
  nova::check(nova_conv_reference(&ref_desc, x.data(), w.data(), nullptr, 0, ref.data()));
  nova::Handle handle(NOVA_BACKEND_CPU);
  const auto start = std::chrono::steady_clock::now();
  handle.forward(desc, x16.data(), w.data(), 1, y16.data());
  const double ms = ms_since(start);
  for (size_t i = 0; i < y.size(); ++i) {
    _Float16 h;
    std::memcpy(&h, &y16[i], sizeof h);
    y[i] = static_cast<float>(h);
  }
  double err2 = 0, ref2 = 0;
  bool finite = true;
  for (size_t i = 0; i < y.size(); ++i) {
    finite = finite && std::isfinite(y[i]);
    err2 += (double{y[i]} - ref[i]) * (double{y[i]} - ref[i]);
    ref2 += double{ref[i]} * ref[i];
  }
  const double u = std::ldexp(1.0, -11), rel = std::sqrt(err2 / ref2), tolerance = 2 * 0.7 * u * t.amp2d + 4 * u;
  std::printf("  run: N=%lld C=%lld H=%lld W=%lld K=%lld pad=%d fp16 NCHW, CPU backend, %.1f ms: relative L2 error "
              "%.3e vs FP64 (precision model: predicted %.3e, tolerance %.3e) %s\n",
              static_cast<long long>(desc.n), static_cast<long long>(desc.c), static_cast<long long>(desc.h),
              static_cast<long long>(desc.w), static_cast<long long>(desc.k), desc.pad, ms, rel, 0.7 * u * t.amp2d,
              tolerance, finite && rel <= tolerance ? "ok" : "FAILED");
  return finite && rel <= tolerance;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nova-jit: load nova.transform/1 JSONs into libnova_runtime at run time (no rebuild): read, verify\n"
               "exactly, generate, register; optionally compile the GPU kernels with NVRTC (through the disk cache)\n"
               "and run a convolution with each transform against the FP64 reference."};
  std::vector<std::string> configs;
  std::string arch;
  bool run = false;
  app.add_option("configs", configs, "transform JSON files (nova-discover's output)")->required()->check(CLI::ExistingFile);
  app.add_option("--arch", arch,
                 "also compile every GPU kernel of each transform for this architecture (sm_90a, sm_80, ...) with NVRTC; "
                 "no GPU needed. The cache is $NOVA_CACHE_DIR, else $XDG_CACHE_HOME/nova, else ~/.cache/nova");
  app.add_flag("--run", run, "run an fp16 convolution with each transform (CPU backend) against FP64 direct convolution");
  CLI11_PARSE(app, argc, argv);

  bool ok = true;
  for (const std::string& path : configs) {
    try {
      const auto start = std::chrono::steady_clock::now();
      const nova_transform_info_t t = nova::load_transform(path);
      std::printf("%s: F(%d,%d) points %s, amp2D %.3g; loaded (read, exact verification, codegen, registration) "
                  "in %.1f ms\n",
                  t.name, t.m, t.r, t.points, t.amp2d, ms_since(start));
      if (!arch.empty()) {
        const nova_compile_report_t c = nova::compile_transform(t.name, arch);
        std::printf("  GPU kernels for %s: %.1f ms (%s), %zu bytes of cubin\n", arch.c_str(), c.milliseconds,
                    c.from_cache ? "from the cache" : "NVRTC", c.image_bytes);
      }
      if (run) ok = run_convolution(t) && ok;
    } catch (const nova::Error& e) {
      std::fprintf(stderr, "nova-jit: %s: %s\n", path.c_str(), e.what());
      ok = false;
    }
  }
  return ok ? 0 : 1;
}
