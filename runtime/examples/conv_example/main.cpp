// Runs one 3x3 convolution through libnova_runtime (CPU, or GPU with --gpu when built with CUDA)
// and compares it with the FP64 direct reference.
#include <nova/runtime.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

int main(int argc, char** argv) {
  nova::ConvDesc desc;
  desc.n = 2, desc.c = 16, desc.h = 30, desc.w = 30, desc.k = 24;
  desc.pad = 1;
  desc.transform = argc > 1 ? argv[1] : "auto";

  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(desc.n * desc.c * desc.h * desc.w));
  std::vector<float> w(static_cast<size_t>(desc.k * desc.c * 9)), bias(static_cast<size_t>(desc.k));
  for (auto& v : x) v = normal(rng);
  for (auto& v : w) v = normal(rng) / 12.0f;
  for (auto& v : bias) v = normal(rng);
  const size_t out_elems = static_cast<size_t>(desc.n * desc.k * desc.h * desc.w);
  std::vector<float> y(out_elems), ref(out_elems);

  try {
    nova::Handle handle(NOVA_BACKEND_CPU);
    const std::string name = handle.transform_name(desc);
    handle.forward(desc, x.data(), w.data(), /*version=*/1, y.data(), bias.data(), /*relu=*/true);
    nova::check(nova_conv_reference(&desc, x.data(), w.data(), bias.data(), 1, ref.data()));
    double err2 = 0, ref2 = 0;
    for (size_t i = 0; i < out_elems; ++i) {
      err2 += (double{y[i]} - ref[i]) * (double{y[i]} - ref[i]);
      ref2 += double{ref[i]} * ref[i];
    }
    std::printf("nova_conv_example: N=%lld C=%lld H=%lld W=%lld K=%lld pad=%d fp32 NCHW, transform %s\n",
                static_cast<long long>(desc.n), static_cast<long long>(desc.c), static_cast<long long>(desc.h),
                static_cast<long long>(desc.w), static_cast<long long>(desc.k), desc.pad, name.c_str());
    std::printf("relative L2 error vs FP64 direct convolution: %.3e\n", std::sqrt(err2 / ref2));
    return std::sqrt(err2 / ref2) < 1e-4 ? 0 : 1;
  } catch (const nova::Error& e) {
    std::fprintf(stderr, "nova_conv_example: %s\n", e.what());
    return 2;
  }
}
