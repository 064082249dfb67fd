// GPU correctness and speed of libnova_runtime against an FP64 reference and cuDNN's best
// algorithm, in one process on the same inputs. Built by tools/device/build_gpu.sh, run by
// tools/device/bench_conv.sh. Prints tables; writes CSV files into the directory given as argv[1].
#include <nova/runtime.h>

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

#define CUDA_CHECK(call)                                                                            \
  do {                                                                                              \
    const cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));   \
      std::exit(3);                                                                                 \
    }                                                                                               \
  } while (0)
#define CUDNN_CHECK(call)                                                                           \
  do {                                                                                              \
    const cudnnStatus_t s_ = (call);                                                                \
    if (s_ != CUDNN_STATUS_SUCCESS) {                                                               \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudnnGetErrorString(s_));  \
      std::exit(3);                                                                                 \
    }                                                                                               \
  } while (0)
#define NOVA_CHECK(call)                                                                            \
  do {                                                                                              \
    const nova_status_t n_ = (call);                                                                \
    if (n_ != NOVA_STATUS_SUCCESS) {                                                                \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nova_status_string(n_));   \
      std::exit(3);                                                                                 \
    }                                                                                               \
  } while (0)

struct Layer {
  const char* net;
  int channels, size;
};
const Layer kLayers[] = {{"ResNet-50", 64, 56},  {"ResNet-50", 128, 28}, {"ResNet-50", 256, 14},
                         {"ResNet-50", 512, 7},  {"VGG-16", 64, 224},    {"VGG-16", 128, 112},
                         {"VGG-16", 256, 56},    {"VGG-16", 512, 28},    {"VGG-16", 512, 14}};

// Device buffer that frees itself.
struct DeviceBuffer {
  void* ptr = nullptr;
  size_t bytes = 0;
  explicit DeviceBuffer(size_t b) : bytes(b) { CUDA_CHECK(cudaMalloc(&ptr, b ? b : 1)); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <class T> T* as() const { return static_cast<T*>(ptr); }
};

// FP64 direct convolution, NCHW in and out, one thread per output: the reference.
__global__ void reference_conv(const float* x, const float* w, double* y, int N, int C, int H, int W, int K, int pad) {
  const long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long total = static_cast<long long>(N) * K * H * W;  // stride 1, pad 1, r 3: same size
  if (idx >= total) return;
  const int ox = static_cast<int>(idx % W), oy = static_cast<int>((idx / W) % H);
  const int k = static_cast<int>((idx / (static_cast<long long>(W) * H)) % K);
  const int n = static_cast<int>(idx / (static_cast<long long>(W) * H * K));
  double sum = 0;
  for (int c = 0; c < C; ++c)
    for (int i = 0; i < 3; ++i) {
      const int yy = oy + i - pad;
      if (yy < 0 || yy >= H) continue;
      for (int j = 0; j < 3; ++j) {
        const int xx = ox + j - pad;
        if (xx < 0 || xx >= W) continue;
        sum += static_cast<double>(w[((k * C + c) * 3 + i) * 3 + j]) * x[((static_cast<long long>(n) * C + c) * H + yy) * W + xx];
      }
    }
  y[idx] = sum;
}

__global__ void to_half(const float* in, __half* out, long long count) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < count) out[i] = __float2half_rn(in[i]);
}

// NCHW <-> NHWC for the correctness comparison (the reference is NCHW).
template <class T>
__global__ void nhwc_to_nchw(const T* in, T* out, int N, int C, int H, int W) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<long long>(N) * C * H * W) return;
  const int w = static_cast<int>(i % W), h = static_cast<int>((i / W) % H), c = static_cast<int>((i / (W * static_cast<long long>(H))) % C);
  const int n = static_cast<int>(i / (static_cast<long long>(W) * H * C));
  out[i] = in[((static_cast<long long>(n) * H + h) * W + w) * C + c];
}

template <class T>
__global__ void nchw_to_nhwc(const T* in, T* out, int N, int C, int H, int W) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<long long>(N) * C * H * W) return;
  const int c = static_cast<int>(i % C), w = static_cast<int>((i / C) % W), h = static_cast<int>((i / (C * static_cast<long long>(W))) % H);
  const int n = static_cast<int>(i / (static_cast<long long>(C) * W * H));
  out[i] = in[((static_cast<long long>(n) * C + c) * H + h) * W + w];
}

unsigned blocks(long long count) { return static_cast<unsigned>((count + 255) / 256); }

struct ErrorStats {
  double rel_l2;
  long long non_finite;
};

// Compares a device output (fp16 or fp32, NCHW) with the FP64 reference.
ErrorStats compare(const void* y, nova_dtype_t dtype, const std::vector<double>& ref) {
  const size_t count = ref.size();
  std::vector<double> got(count);
  if (dtype == NOVA_DTYPE_FP16) {
    std::vector<__half> h(count);
    CUDA_CHECK(cudaMemcpy(h.data(), y, count * sizeof(__half), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < count; ++i) got[i] = __half2float(h[i]);
  } else {
    std::vector<float> f(count);
    CUDA_CHECK(cudaMemcpy(f.data(), y, count * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < count; ++i) got[i] = f[i];
  }
  double e2 = 0, r2 = 0;
  long long bad = 0;
  for (size_t i = 0; i < count; ++i) {
    if (!std::isfinite(got[i])) {
      ++bad;
      continue;
    }
    e2 += (got[i] - ref[i]) * (got[i] - ref[i]);
    r2 += ref[i] * ref[i];
  }
  return {bad ? INFINITY : std::sqrt(e2 / r2), bad};
}

// Inputs for one shape: x in fp32 and fp16 (same fp16-representable values), weights, reference.
struct Problem {
  int n, c, k, h, w;
  DeviceBuffer x32, x16, w32;
  std::vector<double> reference;
  Problem(int n_, int c_, int k_, int hw, float x_scale, bool uniform, unsigned seed, bool with_reference = true)
      : n(n_), c(c_), k(k_), h(hw), w(hw), x32(sizeof(float) * n_ * c_ * hw * hw), x16(sizeof(__half) * n_ * c_ * hw * hw),
        w32(sizeof(float) * k_ * c_ * 9) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_real_distribution<float> flat(-1.0f, 1.0f);
    std::vector<float> x(static_cast<size_t>(n) * c * h * w), wt(static_cast<size_t>(k) * c * 9);
    for (auto& v : x) v = __half2float(__float2half_rn(x_scale * (uniform ? flat(rng) : normal(rng))));
    for (auto& v : wt) v = normal(rng) / std::sqrt(9.0f * static_cast<float>(c));
    CUDA_CHECK(cudaMemcpy(x32.ptr, x.data(), x32.bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(w32.ptr, wt.data(), w32.bytes, cudaMemcpyHostToDevice));
    to_half<<<blocks(static_cast<long long>(x.size())), 256>>>(x32.as<float>(), x16.as<__half>(), static_cast<long long>(x.size()));
    if (!with_reference) return;
    DeviceBuffer yref(sizeof(double) * n * k * h * w);
    const long long outs = static_cast<long long>(n) * k * h * w;
    reference_conv<<<blocks(outs), 256>>>(x32.as<float>(), w32.as<float>(), yref.as<double>(), n, c, h, w, k, 1);
    CUDA_CHECK(cudaGetLastError());
    reference.resize(static_cast<size_t>(outs));
    CUDA_CHECK(cudaMemcpy(reference.data(), yref.ptr, yref.bytes, cudaMemcpyDeviceToHost));
  }
  nova_conv_desc_t desc(nova_dtype_t dtype, nova_layout_t layout, const char* transform) const {
    nova_conv_desc_t d;
    nova_conv_desc_init(&d);
    d.n = n, d.c = c, d.h = h, d.w = w, d.k = k, d.pad = 1, d.dtype = dtype, d.layout = layout, d.transform = transform;
    return d;
  }
  const void* input(nova_dtype_t dtype) const { return dtype == NOVA_DTYPE_FP16 ? x16.ptr : x32.ptr; }
};

// A bias (on the device) and ReLU for a forward, with the FP64 reference they turn p's into.
struct Epilogue {
  const float* bias;
  int relu;
  std::vector<double> reference;
};

// One forward of `transform` on p's input, compared with the FP64 reference (or the epilogue's).
// NHWC runs on converted copies; `fused` (when asked) says whether the runtime ran its fused kernel.
ErrorStats run_nova(nova_handle_t handle, const Problem& p, nova_dtype_t dtype, const char* transform,
                    nova_layout_t layout = NOVA_LAYOUT_NCHW, nova_algo_t algorithm = NOVA_ALGO_AUTO,
                    int* fused = nullptr, const Epilogue* epilogue = nullptr) {
  nova_conv_desc_t d = p.desc(dtype, layout, transform);
  d.algorithm = algorithm;
  const size_t element = dtype == NOVA_DTYPE_FP16 ? 2 : 4;
  DeviceBuffer y(element * p.reference.size()), x_nhwc(element * p.reference.size() / p.k * p.c),
      y_nhwc(element * p.reference.size());
  CUDA_CHECK(cudaMemset(y.ptr, 0xff, y.bytes));  // poison: NaN in both dtypes
  CUDA_CHECK(cudaMemset(y_nhwc.ptr, 0xff, y_nhwc.bytes));
  const bool nhwc = layout == NOVA_LAYOUT_NHWC;
  const long long in_count = static_cast<long long>(x_nhwc.bytes / element), out_count = static_cast<long long>(p.reference.size());
  if (nhwc && dtype == NOVA_DTYPE_FP16)
    nchw_to_nhwc<<<blocks(in_count), 256>>>(p.x16.as<__half>(), x_nhwc.as<__half>(), p.n, p.c, p.h, p.w);
  else if (nhwc)
    nchw_to_nhwc<<<blocks(in_count), 256>>>(p.x32.as<float>(), x_nhwc.as<float>(), p.n, p.c, p.h, p.w);
  const void* x = nhwc ? x_nhwc.ptr : p.input(dtype);
  void* out = nhwc ? y_nhwc.ptr : y.ptr;
  const float* bias = epilogue ? epilogue->bias : nullptr;
  const int relu = epilogue ? epilogue->relu : 0;
  if (fused) {
    nova_stage_profile_t profile{};
    NOVA_CHECK(nova_conv_profile(handle, &d, x, p.w32.as<float>(), 1, bias, relu, out, nullptr, 0, &profile));
    *fused = profile.fused;
  } else {
    NOVA_CHECK(nova_conv_forward(handle, &d, x, p.w32.as<float>(), 1, bias, relu, out, nullptr, 0));
  }
  if (nhwc && dtype == NOVA_DTYPE_FP16)
    nhwc_to_nchw<<<blocks(out_count), 256>>>(y_nhwc.as<__half>(), y.as<__half>(), p.n, p.k, p.h, p.w);
  else if (nhwc)
    nhwc_to_nchw<<<blocks(out_count), 256>>>(y_nhwc.as<float>(), y.as<float>(), p.n, p.k, p.h, p.w);
  CUDA_CHECK(cudaDeviceSynchronize());
  return compare(y.ptr, dtype, epilogue ? epilogue->reference : p.reference);
}

double unit_roundoff(nova_dtype_t dtype) { return dtype == NOVA_DTYPE_FP16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -24); }

// Median of `reps` timings of fn() with device events, after warm-up.
template <class Fn>
double median_ms(cudaStream_t stream, int reps, Fn&& fn) {
  for (int i = 0; i < 3; ++i) fn();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  cudaEvent_t a, b;
  CUDA_CHECK(cudaEventCreate(&a));
  CUDA_CHECK(cudaEventCreate(&b));
  std::vector<float> times;
  for (int i = 0; i < reps; ++i) {
    CUDA_CHECK(cudaEventRecord(a, stream));
    fn();
    CUDA_CHECK(cudaEventRecord(b, stream));
    CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    times.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::nth_element(times.begin(), times.begin() + static_cast<long>(times.size() / 2), times.end());
  return times[times.size() / 2];
}

// Captures fn() into a CUDA graph and times its replays; returns NAN if capture is refused.
template <class Fn>
double graph_median_ms(cudaStream_t stream, int reps, Fn&& fn) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  fn();
  if (cudaStreamEndCapture(stream, &graph) != cudaSuccess || cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) {
    cudaGetLastError();
    return NAN;
  }
  const double ms = median_ms(stream, reps, [&] { CUDA_CHECK(cudaGraphLaunch(exec, stream)); });
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  return ms;
}

struct Cudnn {
  cudnnHandle_t handle;
  cudnnTensorDescriptor_t x, y;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  cudnnConvolutionFwdAlgo_t algo;
  std::unique_ptr<DeviceBuffer> workspace;
  DeviceBuffer w16;
  Cudnn(cudnnHandle_t h, const Problem& p, nova_layout_t layout)
      : handle(h), w16(sizeof(__half) * p.k * p.c * 9) {
    const cudnnTensorFormat_t fmt = layout == NOVA_LAYOUT_NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&x));
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&y));
    CUDNN_CHECK(cudnnCreateFilterDescriptor(&w));
    CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv));
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(x, fmt, CUDNN_DATA_HALF, p.n, p.c, p.h, p.w));
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(y, fmt, CUDNN_DATA_HALF, p.n, p.k, p.h, p.w));
    CUDNN_CHECK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_HALF, fmt, p.k, p.c, 3, 3));
    CUDNN_CHECK(cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CUDNN_CHECK(cudnnSetConvolutionMathType(conv, CUDNN_TENSOR_OP_MATH));
  }
  ~Cudnn() {
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyConvolutionDescriptor(conv);
  }
  // cudnnFind over every algorithm on these buffers; keeps the fastest.
  void find(const void* xd, void* yd) {
    size_t limit = size_t{1} << 30;
    DeviceBuffer scratch(limit);
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int returned = 0;
    CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(handle, x, xd, w, w16.ptr, conv, y, yd,
                                                       CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf, scratch.ptr, limit));
    for (int i = 0; i < returned; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS) {
        algo = perf[i].algo;
        workspace = std::make_unique<DeviceBuffer>(perf[i].memory);
        return;
      }
    std::fprintf(stderr, "cudnnFind found no algorithm\n");
    std::exit(3);
  }
  void run(const void* xd, void* yd) {
    const float one = 1.0f, zero = 0.0f;
    CUDNN_CHECK(cudnnConvolutionForward(handle, &one, x, xd, w, w16.ptr, conv, algo, workspace->ptr, workspace->bytes, &zero, y, yd));
  }
};

const char* layout_name(nova_layout_t l) { return l == NOVA_LAYOUT_NHWC ? "NHWC" : "NCHW"; }

// Whether the fused kernel can run p's fp16 convolution in this layout with this transform.
bool fusable(nova_handle_t gpu, const Problem& p, nova_layout_t layout, const char* transform) {
  nova_conv_desc_t d = p.desc(NOVA_DTYPE_FP16, layout, transform);
  d.algorithm = NOVA_ALGO_FUSED;
  const char* unused = nullptr;
  return nova_conv_transform_name(gpu, &d, &unused) == NOVA_STATUS_SUCCESS;
}

double copy_bandwidth_gbs(cudaStream_t stream) {
  const size_t bytes = size_t{1} << 30;
  DeviceBuffer a(bytes), b(bytes);
  CUDA_CHECK(cudaMemset(a.ptr, 1, bytes));
  const double ms = median_ms(stream, 10, [&] { CUDA_CHECK(cudaMemcpyAsync(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice, stream)); });
  return 2.0 * static_cast<double>(bytes) / (ms * 1e6);  // read + write
}

}  // namespace

int main(int argc, char** argv) {
  const std::string out_dir = argc > 1 ? argv[1] : ".";
  // Options after the output folder: --quick (skip batch 8); --layer C,HW,N (only the speed of that
  // layer, nothing else: for profilers such as ncu); --transform NAME (the speed section runs that
  // transform instead of "auto", e.g. "tuned").
  bool quick = false;
  int only_c = 0, only_hw = 0, only_n = 0;
  const char* speed_transform = "auto";
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    else if (std::strcmp(argv[i], "--layer") == 0 && i + 1 < argc &&
             std::sscanf(argv[i + 1], "%d,%d,%d", &only_c, &only_hw, &only_n) == 3) ++i;
    else if (std::strcmp(argv[i], "--transform") == 0 && i + 1 < argc) speed_transform = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s OUT_DIR [--quick] [--layer C,HW,N] [--transform NAME]\n", argv[0]);
      return 2;
    }
  }
  const bool single_layer = only_n > 0;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIP: no CUDA device\n");
    return 0;
  }
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  nova_handle_t gpu = nullptr, cpu = nullptr;
  NOVA_CHECK(nova_create(&gpu, NOVA_BACKEND_GPU, stream));
  NOVA_CHECK(nova_create(&cpu, NOVA_BACKEND_CPU, nullptr));
  cudnnHandle_t dnn;
  CUDNN_CHECK(cudnnCreate(&dnn));
  CUDNN_CHECK(cudnnSetStream(dnn, stream));
  std::printf("device: %s, %d SMs; cuDNN %zu; nova transforms: %d\n", prop.name, prop.multiProcessorCount,
              cudnnGetVersion(), nova_transform_count());

  std::vector<nova_transform_info_t> transforms;
  for (int i = 0; i < nova_transform_count(); ++i) {
    nova_transform_info_t info;
    NOVA_CHECK(nova_transform_info(i, &info));
    if (info.r == 3) transforms.push_back(info);
  }

  if (!single_layer) {
    // 1. Correctness: every transform, every layer shape (batch 1), fp16 and fp32, NCHW.
    FILE* acc = std::fopen((out_dir + "/accuracy.csv").c_str(), "w");
    std::fprintf(acc, "transform,layer,channels,size,dtype,rel_l2,predicted,ratio,non_finite\n");
    std::printf("\n== correctness vs FP64 (batch 1, Gaussian inputs, NCHW): worst ratio measured/predicted per transform\n");
    std::printf("%-20s %8s %12s %12s %8s %12s %12s %8s %10s\n", "transform", "amp2D", "fp16 err", "pred", "ratio",
                "fp32 err", "pred", "ratio", "nonfinite");
    std::vector<Problem*> problems;
    for (const Layer& l : kLayers) problems.push_back(new Problem(1, l.channels, l.channels, l.size, 1.0f, false, 11u + l.size));
    for (const auto& t : transforms) {
      double worst[2] = {0, 0}, err_at_worst[2] = {0, 0};
      long long bad = 0;
      for (size_t li = 0; li < problems.size(); ++li)
        for (const nova_dtype_t dtype : {NOVA_DTYPE_FP16, NOVA_DTYPE_FP32}) {
          const ErrorStats e = run_nova(gpu, *problems[li], dtype, t.name);
          const double predicted = 0.7 * unit_roundoff(dtype) * t.amp2d;
          const int d = dtype == NOVA_DTYPE_FP16 ? 0 : 1;
          std::fprintf(acc, "%s,%s,%d,%d,%s,%.4e,%.4e,%.3f,%lld\n", t.name, kLayers[li].net, kLayers[li].channels,
                       kLayers[li].size, d ? "fp32" : "fp16", e.rel_l2, predicted, e.rel_l2 / predicted, e.non_finite);
          bad += e.non_finite;
          if (e.rel_l2 / predicted > worst[d] || !std::isfinite(e.rel_l2)) worst[d] = e.rel_l2 / predicted, err_at_worst[d] = e.rel_l2;
        }
      std::printf("%-20s %8.1f %12.3e %12.3e %8.2f %12.3e %12.3e %8.2f %10lld\n", t.name, t.amp2d, err_at_worst[0],
                  0.7 * unit_roundoff(NOVA_DTYPE_FP16) * t.amp2d, worst[0], err_at_worst[1],
                  0.7 * unit_roundoff(NOVA_DTYPE_FP32) * t.amp2d, worst[1], bad);
    }
    // 1b. fp16 through the fused kernel where it runs (fused column), else the 3-pass pipeline;
    //     NCHW runs it between two layout conversions.
    std::printf("\n== correctness vs FP64, fp16 (batch 1), fused kernel where it runs: worst ratio measured/predicted\n");
    std::printf("%-20s %6s %8s %12s %12s %8s %10s %7s\n", "transform", "layout", "amp2D", "fp16 err", "pred", "ratio",
                "nonfinite", "fused");
    for (const nova_layout_t layout : {NOVA_LAYOUT_NHWC, NOVA_LAYOUT_NCHW})
      for (const auto& t : transforms) {
        double worst = 0, err_at_worst = 0;
        long long bad = 0;
        int fused_layers = 0;
        for (size_t li = 0; li < problems.size(); ++li) {
          int fused = 0;
          const nova_algo_t algorithm = fusable(gpu, *problems[li], layout, t.name) ? NOVA_ALGO_FUSED : NOVA_ALGO_AUTO;
          const ErrorStats e = run_nova(gpu, *problems[li], NOVA_DTYPE_FP16, t.name, layout, algorithm, &fused);
          const double predicted = 0.7 * unit_roundoff(NOVA_DTYPE_FP16) * t.amp2d;
          std::fprintf(acc, "%s,%s,%d,%d,fp16-%s%s,%.4e,%.4e,%.3f,%lld\n", t.name, kLayers[li].net, kLayers[li].channels,
                       kLayers[li].size, layout == NOVA_LAYOUT_NHWC ? "nhwc" : "nchw", fused ? "-fused" : "", e.rel_l2,
                       predicted, e.rel_l2 / predicted, e.non_finite);
          bad += e.non_finite, fused_layers += fused;
          if (e.rel_l2 / predicted > worst || !std::isfinite(e.rel_l2)) worst = e.rel_l2 / predicted, err_at_worst = e.rel_l2;
        }
        std::printf("%-20s %6s %8.1f %12.3e %12.3e %8.2f %10lld %4d/%zu\n", t.name, layout_name(layout), t.amp2d,
                    err_at_worst, 0.7 * unit_roundoff(NOVA_DTYPE_FP16) * t.amp2d, worst, bad, fused_layers, problems.size());
      }
    std::fclose(acc);
    for (Problem* p : problems) delete p;

    // 1c. The fused kernel's border tiles and epilogue: sizes that are not multiples of the tile,
    //     K not a multiple of a block's K, bias and ReLU, batch > 1, for each of its launch shapes
    //     (C = 32: several tile groups a block, one K block a warp; C = 128: one block an SM, two
    //     K blocks a warp, outputs restaged through shared memory). Outputs are poisoned, so an
    //     unwritten pixel counts as non-finite.
    std::printf("\n== fused kernel, border tiles + bias + ReLU, fp16, vs FP64\n%-20s %6s %-22s %12s %12s %8s %10s\n",
                "transform", "layout", "N,C,K,HW", "fp16 err", "pred", "ratio", "nonfinite");
    {
      const int shapes[][4] = {{3, 32, 48, 29}, {2, 128, 80, 23}, {1, 64, 16, 9}, {2, 128, 128, 30}};
      for (const auto& s : shapes) {
        const Problem p(s[0], s[1], s[2], s[3], 1.0f, false, 31u + s[3]);
        std::vector<float> bias(s[2]);
        std::mt19937 rng(7u + s[2]);
        std::normal_distribution<float> normal(0.0f, 0.5f);
        for (auto& b : bias) b = normal(rng);
        DeviceBuffer bias_d(sizeof(float) * bias.size());
        CUDA_CHECK(cudaMemcpy(bias_d.ptr, bias.data(), bias_d.bytes, cudaMemcpyHostToDevice));
        Epilogue epilogue{bias_d.as<float>(), 1, p.reference};
        const size_t plane = static_cast<size_t>(p.h) * p.w;
        for (size_t i = 0; i < epilogue.reference.size(); ++i)
          epilogue.reference[i] = std::max(0.0, epilogue.reference[i] + bias[i / plane % p.k]);
        for (const nova_layout_t layout : {NOVA_LAYOUT_NHWC, NOVA_LAYOUT_NCHW})
          for (const auto& t : transforms) {
            if (!fusable(gpu, p, layout, t.name)) continue;
            int fused = 0;
            const ErrorStats e = run_nova(gpu, p, NOVA_DTYPE_FP16, t.name, layout, NOVA_ALGO_FUSED, &fused, &epilogue);
            const double predicted = 0.7 * unit_roundoff(NOVA_DTYPE_FP16) * t.amp2d;
            char shape[32];
            std::snprintf(shape, sizeof shape, "%d,%d,%d,%d%s", s[0], s[1], s[2], s[3], fused ? "" : " (not fused)");
            std::printf("%-20s %6s %-22s %12.3e %12.3e %8.2f %10lld\n", t.name, layout_name(layout), shape, e.rel_l2,
                        predicted, e.rel_l2 / predicted, e.non_finite);
          }
      }
    }

    // 1d. Misaligned tensors on the fused path get a status, not a kernel fault.
    {
      const Problem p(1, 64, 64, 56, 1.0f, false, 3u, /*with_reference=*/false);
      DeviceBuffer y(sizeof(__half) * (static_cast<size_t>(p.k) * p.h * p.w + 8));
      std::printf("\n== misaligned tensors, fused path (expected: misaligned, then a healthy device)\n");
      for (const nova_layout_t layout : {NOVA_LAYOUT_NHWC, NOVA_LAYOUT_NCHW}) {
        nova_conv_desc_t d = p.desc(NOVA_DTYPE_FP16, layout, "auto");
        d.algorithm = NOVA_ALGO_FUSED;
        const nova_status_t on_x = nova_conv_forward(gpu, &d, p.x16.as<__half>() + 1, p.w32.as<float>(), 1, nullptr, 0, y.ptr,
                                                     nullptr, 0);
        const nova_status_t on_y = nova_conv_forward(gpu, &d, p.x16.ptr, p.w32.as<float>(), 1, nullptr, 0, y.as<__half>() + 1,
                                                     nullptr, 0);
        std::printf("%s: x + 1 element: %s; y + 1 element: %s; device: %s\n", layout_name(layout),
                    on_x == NOVA_STATUS_MISALIGNED ? "misaligned" : nova_status_string(on_x),
                    on_y == NOVA_STATUS_MISALIGNED ? "misaligned" : nova_status_string(on_y),
                    cudaGetErrorString(cudaDeviceSynchronize()));
      }
    }

    // 2. Large inputs: |x| up to 8, fp16, where the standard integer F(6,3) overflows.
    std::printf("\n== fp16, inputs uniform in [-8, 8], ResNet-50 64@56, batch 8\n%-20s %12s %12s\n", "transform", "rel L2", "non-finite");
    {
      Problem big(8, 64, 64, 56, 8.0f, true, 99u);
      for (const auto& t : transforms) {
        if (t.m != 6) continue;
        const ErrorStats e = run_nova(gpu, big, NOVA_DTYPE_FP16, t.name);
        std::printf("%-20s %12.3e %12lld\n", t.name, e.rel_l2, e.non_finite);
      }
    }

    // 3. CPU and GPU paths agree (same transform, fp32).
    std::printf("\n== CPU vs GPU, fp32, N=2 C=16 K=24 H=W=20\n%-20s %14s\n", "transform", "rel difference");
    {
      Problem p(2, 16, 24, 20, 1.0f, false, 5u);
      std::vector<float> x(p.reference.size() / 24 * 16), w(24 * 16 * 9), ycpu(p.reference.size()), ygpu(p.reference.size());
      CUDA_CHECK(cudaMemcpy(x.data(), p.x32.ptr, p.x32.bytes, cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaMemcpy(w.data(), p.w32.ptr, p.w32.bytes, cudaMemcpyDeviceToHost));
      DeviceBuffer yd(sizeof(float) * p.reference.size());
      for (const auto& t : transforms) {
        const nova_conv_desc_t d = p.desc(NOVA_DTYPE_FP32, NOVA_LAYOUT_NCHW, t.name);
        NOVA_CHECK(nova_conv_forward(cpu, &d, x.data(), w.data(), 1, nullptr, 0, ycpu.data(), nullptr, 0));
        NOVA_CHECK(nova_conv_forward(gpu, &d, p.x32.ptr, p.w32.as<float>(), 1, nullptr, 0, yd.ptr, nullptr, 0));
        CUDA_CHECK(cudaMemcpy(ygpu.data(), yd.ptr, yd.bytes, cudaMemcpyDeviceToHost));
        double e2 = 0, r2 = 0;
        for (size_t i = 0; i < ycpu.size(); ++i) e2 += double(ycpu[i] - ygpu[i]) * (ycpu[i] - ygpu[i]), r2 += double(ycpu[i]) * ycpu[i];
        std::printf("%-20s %14.3e\n", t.name, std::sqrt(e2 / r2));
      }
    }

  }  // !single_layer

  // 4. Speed against cuDNN, fp16, "auto" transform, NHWC and NCHW, plain launches and graph replay.
  const double bandwidth = copy_bandwidth_gbs(stream);
  FILE* speed = std::fopen((out_dir + "/speed.csv").c_str(), "w");
  std::fprintf(speed, "layer,channels,size,batch,layout,transform,nova_us,cudnn_us,ratio,nova_graph_us,cudnn_graph_us,graph_ratio\n");
  FILE* stages = std::fopen((out_dir + "/stages.csv").c_str(), "w");
  std::fprintf(stages, "layer,channels,size,batch,layout,transform,fused,filter_us,input_us,gemm_us,output_us,input_gbs,gemm_tflops,"
                      "output_gbs,gemm_gbs\n");
  std::printf("\n== speed, fp16 (copy bandwidth %.0f GB/s): median us, ratio nova/cuDNN\n", bandwidth);
  std::printf("%-10s %4s %4s %3s %6s %-18s %9s %9s %6s %9s %9s %6s\n", "net", "C", "HW", "N", "lay", "transform", "nova",
              "cudnn", "ratio", "nova-g", "cudnn-g", "ratio");
  std::vector<std::string> stage_lines;
  for (const int batch : {1, 8, 32}) {
    if ((quick && batch == 8) || (single_layer && batch != only_n)) continue;
    for (const Layer& l : kLayers) {
      if (single_layer && (l.channels != only_c || l.size != only_hw)) continue;
      Problem p(batch, l.channels, l.channels, l.size, 1.0f, false, 21u, /*with_reference=*/false);
      // Each layout with the default algorithm (AUTO: fused or 3-pass) and with each algorithm
      // asked for: the 3-pass pipeline (NHWC-3, NCHW-3) and the fused kernel where it runs (-f).
      const std::pair<nova_layout_t, nova_algo_t> variants[] = {
          {NOVA_LAYOUT_NHWC, NOVA_ALGO_AUTO}, {NOVA_LAYOUT_NHWC, NOVA_ALGO_THREE_PASS}, {NOVA_LAYOUT_NHWC, NOVA_ALGO_FUSED},
          {NOVA_LAYOUT_NCHW, NOVA_ALGO_AUTO}, {NOVA_LAYOUT_NCHW, NOVA_ALGO_THREE_PASS}, {NOVA_LAYOUT_NCHW, NOVA_ALGO_FUSED}};
      for (const auto& [layout, algorithm] : variants) {
        nova_conv_desc_t d = p.desc(NOVA_DTYPE_FP16, layout, speed_transform);
        d.algorithm = algorithm;
        const char* name = nullptr;
        if (algorithm == NOVA_ALGO_FUSED && nova_conv_transform_name(gpu, &d, &name) == NOVA_STATUS_NOT_SUPPORTED) continue;
        NOVA_CHECK(nova_conv_transform_name(gpu, &d, &name));
        const std::string lay = std::string(layout_name(layout)) + (algorithm == NOVA_ALGO_FUSED        ? "-f"
                                                                    : algorithm == NOVA_ALGO_THREE_PASS ? "-3"
                                                                                                        : "");
        DeviceBuffer x(p.x16.bytes), y(sizeof(__half) * p.n * p.k * p.h * p.w);
        if (layout == NOVA_LAYOUT_NHWC)
          nchw_to_nhwc<<<blocks(static_cast<long long>(p.x16.bytes / 2)), 256>>>(p.x16.as<__half>(), x.as<__half>(), p.n, p.c, p.h, p.w);
        else
          CUDA_CHECK(cudaMemcpy(x.ptr, p.x16.ptr, p.x16.bytes, cudaMemcpyDeviceToDevice));
        size_t ws_bytes = 0;
        NOVA_CHECK(nova_conv_workspace_size(gpu, &d, &ws_bytes));
        DeviceBuffer ws(ws_bytes);
        NOVA_CHECK(nova_filter_transform(gpu, &d, p.w32.as<float>(), 1));
        auto nova_run = [&] {
          NOVA_CHECK(nova_conv_forward(gpu, &d, x.ptr, p.w32.as<float>(), 1, nullptr, 0, y.ptr, ws.ptr, ws.bytes));
        };
        Cudnn dnn_conv(dnn, p, layout);
        to_half<<<blocks(p.k * p.c * 9), 256>>>(p.w32.as<float>(), dnn_conv.w16.as<__half>(), p.k * p.c * 9);
        if (layout == NOVA_LAYOUT_NHWC) {  // cuDNN's NHWC filter is K x R x S x C
          DeviceBuffer tmp(dnn_conv.w16.bytes);
          CUDA_CHECK(cudaMemcpy(tmp.ptr, dnn_conv.w16.ptr, tmp.bytes, cudaMemcpyDeviceToDevice));
          nchw_to_nhwc<<<blocks(p.k * p.c * 9), 256>>>(tmp.as<__half>(), dnn_conv.w16.as<__half>(), p.k, p.c, 3, 3);
        }
        dnn_conv.find(x.ptr, y.ptr);
        auto dnn_run = [&] { dnn_conv.run(x.ptr, y.ptr); };
        const int reps = batch == 32 ? 30 : 100;
        const double t_nova = median_ms(stream, reps, nova_run) * 1e3, t_dnn = median_ms(stream, reps, dnn_run) * 1e3;
        const double g_nova = graph_median_ms(stream, reps, nova_run) * 1e3, g_dnn = graph_median_ms(stream, reps, dnn_run) * 1e3;
        std::printf("%-10s %4d %4d %3d %6s %-18s %9.1f %9.1f %6.2f %9.1f %9.1f %6.2f\n", l.net, l.channels, l.size, batch,
                    lay.c_str(), name, t_nova, t_dnn, t_nova / t_dnn, g_nova, g_dnn, g_nova / g_dnn);
        std::fprintf(speed, "%s,%d,%d,%d,%s,%s,%.2f,%.2f,%.3f,%.2f,%.2f,%.3f\n", l.net, l.channels, l.size, batch,
                     lay.c_str(), name, t_nova, t_dnn, t_nova / t_dnn, g_nova, g_dnn, g_nova / g_dnn);
        if (batch == 32) {
          nova_stage_profile_t prof{}, best{};
          for (int rep = 0; rep < 5; ++rep) {
            NOVA_CHECK(nova_conv_profile(gpu, &d, x.ptr, p.w32.as<float>(), 1, nullptr, 0, y.ptr, ws.ptr, ws.bytes, &prof));
            if (rep == 0 || prof.input_ms + prof.gemm_ms + prof.output_ms < best.input_ms + best.gemm_ms + best.output_ms) best = prof;
          }
          // The fused kernel's one time is the GEMM column, its bytes x, U and y; for NCHW the input
          // and output columns are the layout conversions (none for NHWC).
          const auto gbs = [](double bytes, double ms) { return bytes > 0 ? bytes / (ms * 1e6) : 0.0; };
          const auto bw = [&](double bytes, double ms) { return 100.0 * gbs(bytes, ms) / bandwidth; };
          char line[256];
          std::snprintf(line, sizeof line, "%-10s %4d %4d %6s %-18s %8.1f %8.1f %8.1f %8.1f %7.0f%% %7.0f %7.0f%%%s", l.net,
                        l.channels, l.size, lay.c_str(), name, best.filter_ms * 1e3, best.input_ms * 1e3, best.gemm_ms * 1e3,
                        best.output_ms * 1e3, bw(best.input_bytes, best.input_ms), best.gemm_flops / (best.gemm_ms * 1e9),
                        bw(best.output_bytes, best.output_ms), best.fused ? "  fused" : "");
          if (best.fused)
            std::snprintf(line + std::strlen(line), sizeof line - std::strlen(line), ": x, U, y at %.0f%% of copy BW",
                          bw(best.gemm_bytes, best.gemm_ms));
          stage_lines.push_back(line);
          std::fprintf(stages, "%s,%d,%d,%d,%s,%s,%d,%.2f,%.2f,%.2f,%.2f,%.1f,%.2f,%.1f,%.1f\n", l.net, l.channels, l.size,
                       batch, lay.c_str(), name, best.fused, best.filter_ms * 1e3, best.input_ms * 1e3, best.gemm_ms * 1e3,
                       best.output_ms * 1e3, gbs(best.input_bytes, best.input_ms), best.gemm_flops / (best.gemm_ms * 1e9),
                       gbs(best.output_bytes, best.output_ms), gbs(best.gemm_bytes, best.gemm_ms));
        }
      }
    }
  }
  std::fclose(speed);
  std::fclose(stages);
  std::printf("\n== stages at batch 32 (us; filter = uncached transform; %% of copy bandwidth for the fewest bytes; GEMM TFLOP/s)\n");
  std::printf("%-10s %4s %4s %6s %-18s %8s %8s %8s %8s %8s %7s %8s\n", "net", "C", "HW", "lay", "transform", "filter", "input",
              "gemm", "output", "in BW", "TFLOP/s", "out BW");
  for (const auto& line : stage_lines) std::printf("%s\n", line.c_str());
  cudnnDestroy(dnn);
  nova_destroy(gpu);
  nova_destroy(cpu);
  return 0;
}
