// Runs every generated transform kernel (through the GPU registry's launchers) against the CPU
// path on fresh random fp16, bf16 and fp32 data, and prints one row per kernel: max relative error,
// error against the precision-model bound, non-finite values (and how many of them are fp16
// overflows the exact values call for), writes past the end. Exit 0 when every kernel passes,
// 1 otherwise; prints SKIP and exits 0 without a GPU. The ctest gpu.transform_kernels (label gpu).
// The input and output transforms read data that a kernel just before them writes late (late_copy),
// which checks that they wait for it although they are launched as programmatic dependents (and, on
// sm_90 on, that they are).
#include "nova/kernels/hip_compat.h"
#include "nova/kernels/transform_registry.hpp"
#include "nova/kernels/transform_registry_gpu.hpp"
#include "transform_check.hpp"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using nova::kernels::GpuTransformEntry;
using nova::kernels::TransformEntry;
using nova::test::ConvShape;
using nova::test::ImageLayout;
using nova::test::kGuard;
using nova::test::Storage;

void check(hipError_t status, const char* what) {
  if (status != hipSuccess) throw std::runtime_error(std::string(what) + ": " + hipGetErrorString(status));
}

template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    check(hipMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)), "hipMalloc");
    check(hipMemset(data_, 0xff, count * sizeof(T)), "hipMemset");  // all-ones bits: NaN in fp16, bf16 and fp32
  }
  explicit DeviceBuffer(const std::vector<float>& values) : DeviceBuffer(values.size()) {
    const std::vector<T> host = converted(values);
    check(hipMemcpy(data_, host.data(), host.size() * sizeof(T), hipMemcpyHostToDevice), "hipMemcpy to device");
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { (void)hipFree(data_); }

  T* get() const { return data_; }
  std::vector<float> download() const {
    std::vector<T> host(count_);
    check(hipMemcpy(host.data(), data_, count_ * sizeof(T), hipMemcpyDeviceToHost), "hipMemcpy to host");
    std::vector<float> out(count_);
    for (std::size_t i = 0; i < count_; ++i) out[i] = to_float(host[i]);
    return out;
  }

 private:
  static std::vector<T> converted(const std::vector<float>& values) {
    std::vector<T> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = from_float(values[i]);
    return out;
  }
  static float to_float(float v) { return v; }
  static float to_float(__half v) { return __half2float(v); }
  static float to_float(hip_bfloat16 v) { return static_cast<float>(v); }
  static T from_float(float v) {
    if constexpr (std::is_same_v<T, __half>) {
      return __float2half_rn(v);
    } else {
      return T(v);  // float, or bf16 rounded to nearest even
    }
  }

  T* data_ = nullptr;
  std::size_t count_;
};

// Copies `count` elements of `from` into `to`. From sm_90 on it first lets the kernel after it in the
// stream start (programmatic dependent launch), then spins for about 50,000 cycles: a transform
// kernel that read its input before waiting for this one (wait_for_previous_kernel) would read the
// NaN bits `to` was filled with, and fail its check.
template <typename T>
__global__ void late_copy(T* to, const T* from, std::size_t count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");
  for (const long long start = clock64(); clock64() - start < 50000;) {
  }
#endif
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) to[i] = from[i];
}

template <class F>
std::vector<float> with_type(Storage s, F&& f) {
  return nova::test::with_storage_type<__half, hip_bfloat16>(s, std::forward<F>(f));
}

// `multiprocessors`: what the output launcher is told of the GPU (0: NCHW rows through shared memory
// wherever the kernel can, stage_nchw_output; a huge count: nowhere).
class GpuRunner final : public nova::test::KernelRunner {
 public:
  GpuRunner(const TransformEntry& t, int multiprocessors, hipStream_t stream)
      : t_(t), e_(*t.gpu), multiprocessors_(multiprocessors), stream_(stream) {}

  std::vector<float> filter(Storage s, const std::vector<float>& w, int K, int C) override {
    const DeviceBuffer<float> weights(w);
    const std::size_t count = static_cast<std::size_t>(t_.n * t_.n) * K * C + kGuard;
    return with_type(s, [&](auto t) {
      using T = decltype(t);
      DeviceBuffer<T> U(count);
      return finish(launchers<T>().filter(weights.get(), U.get(), K, C, stream_), U);
    });
  }

  std::vector<float> input(ImageLayout l, Storage s, const std::vector<float>& x, const ConvShape& c) override {
    const std::size_t count = static_cast<std::size_t>(t_.n * t_.n) * c.C * tiles(c) + kGuard;
    return with_type(s, [&](auto t) {
      using T = decltype(t);
      const DeviceBuffer<T> source(x);
      DeviceBuffer<T> image(x.size()), V(count);
      write_late(image, source, x.size());
      return finish(launchers<T>().input(layout(l), image.get(), V.get(), c.N, c.C, c.H, c.W, c.pad, stream_), V);
    });
  }

  std::vector<float> output(ImageLayout l, Storage s, Storage product, const std::vector<float>& M, const float* bias,
                            int relu, const ConvShape& c) override {
    const DeviceBuffer<float> bias_values(bias ? std::vector<float>(bias, bias + c.K) : std::vector<float>(1, 0.0f));
    const float* b = bias ? bias_values.get() : nullptr;
    const std::size_t count =
        static_cast<std::size_t>(c.N) * c.K * (c.H + 2 * c.pad - t_.r + 1) * (c.W + 2 * c.pad - t_.r + 1) + kGuard;
    return with_type(s, [&](auto t) {
      using T = decltype(t);
      DeviceBuffer<T> y(count);
      const auto run = [&](auto m_type) {
        using TM = decltype(m_type);
        const DeviceBuffer<TM> source(M);
        DeviceBuffer<TM> m(M.size());
        write_late(m, source, M.size());
        return finish(launchers<T>().output(layout(l), m.get(), y.get(), b, relu, c.N, c.K, c.H, c.W, c.pad,
                                                multiprocessors_, stream_),
                      y);
      };
      if constexpr (!std::is_same_v<T, float>)
        if (product != Storage::f32) return run(T{});  // M exactly representable in T
      return run(float{});
    });
  }

 private:
  template <typename T>
  nova::kernels::Launchers<T> launchers() const {
    return {{t_.m, t_.r, t_.n}, e_};
  }
  static nova::kernels::Layout layout(ImageLayout l) {
    return l == ImageLayout::nchw ? nova::kernels::Layout::nchw : nova::kernels::Layout::nhwc;
  }
  long long tiles(const ConvShape& c) const {
    const int th = (c.H + 2 * c.pad - t_.r + t_.m) / t_.m, tw = (c.W + 2 * c.pad - t_.r + t_.m) / t_.m;
    return static_cast<long long>(c.N) * th * tw;
  }
  // Fills `to` from `from` with a late_copy on the stream; both must live until the stream is done.
  template <typename T>
  void write_late(DeviceBuffer<T>& to, const DeviceBuffer<T>& from, std::size_t count) {
    late_copy<<<64, 256, 0, stream_>>>(to.get(), from.get(), count);
    check(hipGetLastError(), "late_copy launch");
  }
  template <typename T>
  std::vector<float> finish(hipError_t launched, const DeviceBuffer<T>& out) {
    check(launched, "kernel launch");
    check(hipStreamSynchronize(stream_), "kernel execution");
    return out.download();
  }

  const TransformEntry& t_;
  const GpuTransformEntry& e_;
  int multiprocessors_;
  hipStream_t stream_;
};

}  // namespace

int main() {
  int devices = 0;
  if (const hipError_t status = hipGetDeviceCount(&devices); status != hipSuccess || devices == 0) {
    std::printf("SKIP: no GPU (%s)\n", status != hipSuccess ? hipGetErrorString(status) : "0 devices");
    return 0;
  }
  try {
    hipDeviceProp_t props{};
    check(hipGetDeviceProperties(&props, 0), "hipGetDeviceProperties");
    hipStream_t stream = nullptr;
    check(hipStreamCreate(&stream), "hipStreamCreate");
    const unsigned seed = static_cast<unsigned>(std::random_device{}());  // fresh data every run
    std::printf("GPU: %s; wave size %d; data seed %u; inputs uniform in [-1, 1]\n\n", props.name, props.warpSize, seed);
    // Odd sizes (partial blocks, clipped border tiles), padding 0 to 2, and one ResNet-sized layer.
    const std::vector<ConvShape> shapes = {
        {2, 19, 13, 23, 17, 1}, {1, 5, 33, 40, 9, 0}, {3, 3, 2, 7, 5, 2}, {4, 64, 64, 56, 56, 1}};
    nova::test::print_header(stdout);
    int failures = 0;
    for (const TransformEntry& t : nova::kernels::transform_registry()) {
      if (!t.gpu) throw std::runtime_error(std::string("no GPU kernels in the registry entry of ") + t.name);
#if !(defined(__HIP__) || defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__))
      // The late_copy check means something only where the transforms launch as dependents: from sm_90
      // on, every input and output kernel of this build (compiled for sm_90a) must wait.
      for (int i = 0; i < nova::kernels::kKernelsPerTransform && props.major >= 9; ++i) {
        const bool dependent = nova::kernels::launches_as_dependent(nova::kernels::kernel_id(i).kind);
        if (dependent && t.gpu->kernels[i] && !nova::kernels::waits_for_previous_kernel(t.gpu->kernels[i])) {
          std::printf("FAIL: %s %s does not launch as a programmatic dependent\n", t.name,
                      nova::kernels::kernel_symbol(t.name, nova::kernels::kernel_id(i)).c_str());
          ++failures;
        }
      }
#endif
      for (const int multiprocessors : {0, 1 << 30}) {
        GpuRunner runner(t, multiprocessors, stream);
        for (const nova::test::KernelResult& r : nova::test::check_transform(t, runner, shapes, seed)) {
          nova::test::print_row(stdout, t.name, r);
          failures += r.pass() ? 0 : 1;
        }
      }
      std::fflush(stdout);
    }
    check(hipStreamDestroy(stream), "hipStreamDestroy");
    std::printf("\n%s: %d kernel(s) failed\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::printf("FAIL: %s\n", e.what());
    return 1;
  }
}
