// Speed of libnova_runtime against cuDNN's best algorithm, in one process on the same inputs, and
// where its time goes (stage by stage). Correctness lives in the GPU tests (`ctest -L gpu`,
// tests/gpu). Built by tools/device/build_gpu.sh, run by tools/device/bench_conv.sh. Prints tables;
// writes speed.csv and stages.csv into the directory given as argv[1]. --dtype bf16 runs both in
// bfloat16 instead of fp16 (cuDNN with fp32 compute either way). --frontier: every transform on
// both paths as (time, measured error) beside cuDNN and AUTO at batch 32, or --batch N
// (frontier.csv); --random COUNT: AUTO against every configuration within the budget on random
// shapes (random.csv). In both, a fused configuration is timed on each fused kernel that runs it
// (column `kernel`: mma or wgmma; 3-pass for the other path). --epilogue: what bias + ReLU add to a forward (AUTO and the fused kernel) on
// the batch-32 layers (epilogue.csv).
#include <nova/runtime.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
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
  int outputs = 0;  // K; 0: K = C
  int k() const { return outputs ? outputs : channels; }
};
const Layer kLayers[] = {{"ResNet-50", 64, 56},  {"ResNet-50", 128, 28}, {"ResNet-50", 256, 14},
                         {"ResNet-50", 512, 7},  {"VGG-16", 64, 224},    {"VGG-16", 128, 112},
                         {"VGG-16", 256, 56},    {"VGG-16", 512, 28},    {"VGG-16", 512, 14}};
// --channels: one layer of each channel-count class the fused kernel pads or chunks (batch 32):
// VGG-16's first layer (C = 3), C not a multiple of 16 (24, 72, 130), C beyond 512 (a UNet
// decoder's 1024 -> 512).
const Layer kChannelLayers[] = {{"3->64", 3, 224, 64}, {"24->24", 24, 112}, {"72->72", 72, 56},
                                {"130->130", 130, 28}, {"1024->512", 1024, 28, 512}};

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

// The 16-bit type both libraries run in (--dtype), as NOVA and cuDNN name it.
struct Precision {
  const char* name;
  nova_dtype_t nova;
  cudnnDataType_t cudnn;
};
const Precision kPrecisions[] = {{"fp16", NOVA_DTYPE_FP16, CUDNN_DATA_HALF},
                                  {"bf16", NOVA_DTYPE_BF16, CUDNN_DATA_BFLOAT16}};

// v in the 16-bit type, rounded to nearest even, as its bits.
__host__ __device__ unsigned short narrow(float v, nova_dtype_t dtype) {
  return dtype == NOVA_DTYPE_BF16 ? __bfloat16_as_ushort(__float2bfloat16_rn(v)) : __half_as_ushort(__float2half_rn(v));
}

__global__ void narrow_all(const float* in, unsigned short* out, long long count, nova_dtype_t dtype) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < count) out[i] = narrow(in[i], dtype);
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

// One layer's inputs on the device: x in the 16-bit type, NCHW, fp32 weights; random, seeded.
struct Problem {
  int n, c, k, h, w;
  const Precision& precision;
  DeviceBuffer x16, w32;
  Problem(int n_, int c_, int k_, int h_, int w_, const Precision& precision_, unsigned seed)
      : n(n_), c(c_), k(k_), h(h_), w(w_), precision(precision_), x16(sizeof(unsigned short) * n_ * c_ * h_ * w_),
        w32(sizeof(float) * k_ * c_ * 9) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<unsigned short> x(static_cast<size_t>(n) * c * h * w);
    std::vector<float> wt(static_cast<size_t>(k) * c * 9);
    for (auto& v : x) v = narrow(normal(rng), precision.nova);
    for (auto& v : wt) v = normal(rng) / std::sqrt(9.0f * static_cast<float>(c));
    CUDA_CHECK(cudaMemcpy(x16.ptr, x.data(), x16.bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(w32.ptr, wt.data(), w32.bytes, cudaMemcpyHostToDevice));
  }
  nova_conv_desc_t desc(nova_layout_t layout, nova_algo_t algorithm, const char* transform) const {
    nova_conv_desc_t d;
    nova_conv_desc_init(&d);
    d.n = n, d.c = c, d.h = h, d.w = w, d.k = k, d.pad = 1, d.dtype = precision.nova, d.layout = layout;
    d.algorithm = algorithm, d.transform = transform;
    return d;
  }
};

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
      : handle(h), w16(sizeof(unsigned short) * p.k * p.c * 9) {
    const cudnnTensorFormat_t fmt = layout == NOVA_LAYOUT_NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&x));
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&y));
    CUDNN_CHECK(cudnnCreateFilterDescriptor(&w));
    CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv));
    const cudnnDataType_t type = p.precision.cudnn;
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(x, fmt, type, p.n, p.c, p.h, p.w));
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(y, fmt, type, p.n, p.k, p.h, p.w));
    CUDNN_CHECK(cudnnSetFilter4dDescriptor(w, type, fmt, p.k, p.c, 3, 3));
    CUDNN_CHECK(cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CUDNN_CHECK(cudnnSetConvolutionMathType(conv, CUDNN_TENSOR_OP_MATH));
  }
  ~Cudnn() {
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyConvolutionDescriptor(conv);
  }
  // cudnnFind over every algorithm on these buffers, then the candidates it ranks first (up to
  // kCandidates, each within 1.5x of its best) timed again by graph replay on `stream`, the way the
  // bench times everything: cudnnFind's own ranking sometimes keeps one that replays far slower
  // (ResNet-50 64@56 NHWC, batch 1: 80.6 against 8.0 us in the next row).
  void find(const void* xd, void* yd, cudaStream_t stream) {
    constexpr int kCandidates = 4;
    size_t limit = size_t{1} << 30;
    DeviceBuffer scratch(limit);
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int returned = 0;
    // The process's first cudnnFind ranks the algorithms by cold timings: the tables' first row often
    // kept one that replays at 81 against 8 us (ResNet-50 64@56 NHWC, batch 1). That answer is dropped.
    static bool warm = false;
    for (int pass = warm ? 1 : 0; pass < 2; ++pass)
      CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(handle, x, xd, w, w16.ptr, conv, y, yd,
                                                         CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf, scratch.ptr,
                                                         limit));
    warm = true;
    double best_us = HUGE_VAL;
    for (int i = 0, tried = 0; i < returned && tried < kCandidates; ++i) {
      if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
      if (tried > 0 && perf[i].time > 1.5f * perf[0].time) break;
      ++tried;
      auto candidate = std::make_unique<DeviceBuffer>(perf[i].memory);
      const cudnnConvolutionFwdAlgo_t candidate_algo = perf[i].algo;
      const double us = 1e3 * graph_median_ms(stream, 10, [&] { run_with(candidate_algo, *candidate, xd, yd); });
      if (!(us >= best_us)) best_us = us, algo = candidate_algo, workspace = std::move(candidate);
    }
    if (!workspace) {
      std::fprintf(stderr, "cudnnFind found no algorithm\n");
      std::exit(3);
    }
  }
  void run_with(cudnnConvolutionFwdAlgo_t a, const DeviceBuffer& ws, const void* xd, void* yd) {
    const float one = 1.0f, zero = 0.0f;
    CUDNN_CHECK(cudnnConvolutionForward(handle, &one, x, xd, w, w16.ptr, conv, a, ws.ptr, ws.bytes, &zero, y, yd));
  }
  void run(const void* xd, void* yd) { run_with(algo, *workspace, xd, yd); }
};

const char* layout_name(nova_layout_t l) { return l == NOVA_LAYOUT_NHWC ? "NHWC" : "NCHW"; }

double copy_bandwidth_gbs(cudaStream_t stream) {
  const size_t bytes = size_t{1} << 30;
  DeviceBuffer a(bytes), b(bytes);
  CUDA_CHECK(cudaMemset(a.ptr, 1, bytes));
  const double ms = median_ms(stream, 10, [&] { CUDA_CHECK(cudaMemcpyAsync(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice, stream)); });
  return 2.0 * static_cast<double>(bytes) / (ms * 1e6);  // read + write
}


// What the command line asks for.
struct Options {
  std::string out_dir = ".";
  bool quick = false;          // skip batch 8
  bool channels = false;       // the channel-count layers (kChannelLayers) at batch 32 instead
  bool frontier = false;       // every transform and path as (time, error) on the layers at one batch instead
  int frontier_batch = 0;      // --batch N: that batch (0: 32); only with --frontier
  int random_count = 0;        // --random COUNT: AUTO against every configuration on random shapes instead
  bool epilogue = false;       // --epilogue: each batch-32 layer with and without bias + ReLU instead
  unsigned seed = 1;           // --seed S: of the random shapes
  int random_c = 0;            // --random-c C: the random shapes' C fixed at C and K drawn up to it (0: both free)
  int only_c = 0, only_hw = 0, only_n = 0;  // --layer C,HW,N: that layer's speed alone (for profilers)
  Layer shape{"shape", 0, 0};  // --shape C,K,HW,N: any shape's speed alone, batch shape_n (bounds, profilers)
  int shape_n = 0;
  const char* transform = "auto";  // --transform NAME, e.g. "tuned"
  const Precision* precision = &kPrecisions[0];  // --dtype fp16|bf16
  bool single_layer() const { return only_n > 0; }
  bool wants(const Layer& l, int batch) const {
    if (single_layer()) return l.channels == only_c && l.size == only_hw && batch == only_n;
    return !(quick && batch == 8);
  }
};

// The descriptor of the transform the command line asks for (--transform, default "auto"): a named
// one runs whatever its predicted error, which the rows then show as measured.
nova_conv_desc_t asked_desc(const Problem& p, const Options& o, nova_layout_t layout, nova_algo_t algorithm) {
  nova_conv_desc_t d = p.desc(layout, algorithm, o.transform);
  d.allow_inaccurate = 1;
  return d;
}

bool parse_options(int argc, char** argv, Options& o) {
  if (argc > 1) o.out_dir = argv[1];
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) o.quick = true;
    else if (std::strcmp(argv[i], "--channels") == 0) o.channels = true;
    else if (std::strcmp(argv[i], "--frontier") == 0) o.frontier = true;
    else if (std::strcmp(argv[i], "--batch") == 0 && i + 1 < argc &&
             std::sscanf(argv[i + 1], "%d", &o.frontier_batch) == 1 && o.frontier_batch > 0) ++i;
    else if (std::strcmp(argv[i], "--epilogue") == 0) o.epilogue = true;
    else if (std::strcmp(argv[i], "--random") == 0 && i + 1 < argc && std::sscanf(argv[i + 1], "%d", &o.random_count) == 1 &&
             o.random_count > 0) ++i;
    else if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc && std::sscanf(argv[i + 1], "%u", &o.seed) == 1) ++i;
    else if (std::strcmp(argv[i], "--random-c") == 0 && i + 1 < argc && std::sscanf(argv[i + 1], "%d", &o.random_c) == 1 &&
             o.random_c >= 3 && o.random_c <= 1536) ++i;
    else if (std::strcmp(argv[i], "--layer") == 0 && i + 1 < argc &&
             std::sscanf(argv[i + 1], "%d,%d,%d", &o.only_c, &o.only_hw, &o.only_n) == 3) ++i;
    else if (std::strcmp(argv[i], "--shape") == 0 && i + 1 < argc &&
             std::sscanf(argv[i + 1], "%d,%d,%d,%d", &o.shape.channels, &o.shape.outputs, &o.shape.size, &o.shape_n) == 4 &&
             o.shape.channels > 0 && o.shape.outputs > 0 && o.shape.size > 0 && o.shape_n > 0) ++i;
    else if (std::strcmp(argv[i], "--transform") == 0 && i + 1 < argc) o.transform = argv[++i];
    else if (std::strcmp(argv[i], "--dtype") == 0 && i + 1 < argc) {
      const char* name = argv[++i];
      const auto found = std::find_if(std::begin(kPrecisions), std::end(kPrecisions),
                                      [&](const Precision& p) { return std::strcmp(p.name, name) == 0; });
      if (found == std::end(kPrecisions)) return false;
      o.precision = found;
    } else return false;
  }
  return o.frontier || o.frontier_batch == 0;  // --batch belongs to --frontier
}

// Whether --layer names one of the bench's layers: any other would time nothing, and say nothing.
bool known_layer(const Options& o) {
  const auto same = [&](const Layer& l) { return l.channels == o.only_c && l.size == o.only_hw; };
  return std::any_of(std::begin(kLayers), std::end(kLayers), same) ||
         std::any_of(std::begin(kChannelLayers), std::end(kChannelLayers), same);
}

// The GPU, its stream and the libraries compared on it.
struct Bench {
  cudaStream_t stream = nullptr;
  nova_handle_t nova = nullptr;
  // --frontier and --random time the named fused configurations on each fused kernel: handles made with
  // NOVA_FUSED_KERNEL=mma and =wgmma (a handle reads it when it is made; `nova` keeps the caller's).
  nova_handle_t fused_mma = nullptr, fused_wgmma = nullptr;
  cudnnHandle_t dnn = nullptr;
  double bandwidth_gbs = 0;  // device-to-device copy: the memory ceiling the stages are measured against
  FILE* speed = nullptr;
  FILE* stages = nullptr;
  std::vector<std::string> stage_lines;
};

void set_up(Bench& b, const Options& o) {
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  CUDA_CHECK(cudaStreamCreate(&b.stream));
  NOVA_CHECK(nova_create(&b.nova, NOVA_BACKEND_GPU, b.stream));
  const char* caller_kernel = std::getenv("NOVA_FUSED_KERNEL");
  const std::string caller = caller_kernel ? caller_kernel : "";
  for (const auto& [handle, kernel] : {std::pair{&b.fused_mma, "mma"}, std::pair{&b.fused_wgmma, "wgmma"}}) {
    setenv("NOVA_FUSED_KERNEL", kernel, 1);
    NOVA_CHECK(nova_create(handle, NOVA_BACKEND_GPU, b.stream));
  }
  if (caller_kernel) setenv("NOVA_FUSED_KERNEL", caller.c_str(), 1);
  else unsetenv("NOVA_FUSED_KERNEL");
  CUDNN_CHECK(cudnnCreate(&b.dnn));
  CUDNN_CHECK(cudnnSetStream(b.dnn, b.stream));
  b.bandwidth_gbs = copy_bandwidth_gbs(b.stream);
  // The peak the runtime's cost model prices bytes by (gpu_backend.hip memory_gbps): fit_cost_model.py
  // --bandwidth takes it for this run's data.
  int memory_khz = 0, bus_bits = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, 0));
  CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
  std::printf("device: %s, %d SMs; cuDNN %zu; nova transforms: %d; copy bandwidth %.0f GB/s; peak memory bandwidth %.1f GB/s\n",
              prop.name, prop.multiProcessorCount, cudnnGetVersion(), nova_transform_count(), b.bandwidth_gbs,
              2.0 * memory_khz * 1e3 * (bus_bits / 8.0) / 1e9);
  b.speed = std::fopen((o.out_dir + "/speed.csv").c_str(), "w");
  b.stages = std::fopen((o.out_dir + "/stages.csv").c_str(), "w");
  if (!b.speed || !b.stages) {
    std::fprintf(stderr, "cannot write into %s\n", o.out_dir.c_str());
    std::exit(3);
  }
  std::fprintf(b.speed, "layer,channels,size,batch,layout,transform,nova_us,cudnn_us,ratio,nova_graph_us,cudnn_graph_us,"
                        "graph_ratio\n");
  std::fprintf(b.stages, "layer,channels,size,batch,layout,transform,fused,filter_us,input_us,gemm_us,output_us,input_gbs,"
                         "gemm_tflops,output_gbs,gemm_gbs\n");
}

void tear_down(Bench& b) {
  std::fclose(b.speed);
  std::fclose(b.stages);
  cudnnDestroy(b.dnn);
  nova_destroy(b.nova);
  nova_destroy(b.fused_mma);
  nova_destroy(b.fused_wgmma);
  cudaStreamDestroy(b.stream);
}

// The layer's input in the layout asked for (the problem holds NCHW).
void input_in_layout(const Problem& p, nova_layout_t layout, DeviceBuffer& x) {
  if (layout == NOVA_LAYOUT_NHWC)
    nchw_to_nhwc<<<blocks(static_cast<long long>(p.x16.bytes / 2)), 256>>>(p.x16.as<unsigned short>(),
                                                                             x.as<unsigned short>(), p.n, p.c, p.h, p.w);
  else
    CUDA_CHECK(cudaMemcpy(x.ptr, p.x16.ptr, p.x16.bytes, cudaMemcpyDeviceToDevice));
}

// The best of five profiled forwards of d, as one line of the stage table (batch 32) and of stages.csv.
void profile_stages(Bench& b, const Layer& l, const Problem& p, const nova_conv_desc_t& d, const std::string& lay,
                    const char* name, const DeviceBuffer& x, DeviceBuffer& y, DeviceBuffer& ws) {
  nova_stage_profile_t prof{}, best{};
  for (int rep = 0; rep < 5; ++rep) {
    NOVA_CHECK(nova_conv_profile(b.nova, &d, x.ptr, p.w32.as<float>(), 1, nullptr, 0, y.ptr, ws.ptr, ws.bytes, &prof));
    if (rep == 0 || prof.input_ms + prof.gemm_ms + prof.output_ms < best.input_ms + best.gemm_ms + best.output_ms) best = prof;
  }
  // The fused kernel's one time is the GEMM column, its bytes x, U and y; for NCHW the input and
  // output columns are the layout conversions (none for NHWC).
  const auto gbs = [](double bytes, double ms) { return bytes > 0 ? bytes / (ms * 1e6) : 0.0; };
  const auto bw = [&](double bytes, double ms) { return 100.0 * gbs(bytes, ms) / b.bandwidth_gbs; };
  char line[256];
  std::snprintf(line, sizeof line, "%-10s %4d %4d %6s %-18s %8.1f %8.1f %8.1f %8.1f %7.0f%% %7.0f %7.0f%%%s", l.net,
                l.channels, l.size, lay.c_str(), name, best.filter_ms * 1e3, best.input_ms * 1e3, best.gemm_ms * 1e3,
                best.output_ms * 1e3, bw(best.input_bytes, best.input_ms), best.gemm_flops / (best.gemm_ms * 1e9),
                bw(best.output_bytes, best.output_ms), best.fused ? "  fused" : "");
  if (best.fused)
    std::snprintf(line + std::strlen(line), sizeof line - std::strlen(line), ": x, U, y at %.0f%% of copy BW",
                  bw(best.gemm_bytes, best.gemm_ms));
  b.stage_lines.push_back(line);
  std::fprintf(b.stages, "%s,%d,%d,%d,%s,%s,%d,%.2f,%.2f,%.2f,%.2f,%.1f,%.2f,%.1f,%.1f\n", l.net, l.channels, l.size,
               p.n, lay.c_str(), name, best.fused, best.filter_ms * 1e3, best.input_ms * 1e3, best.gemm_ms * 1e3,
               best.output_ms * 1e3, gbs(best.input_bytes, best.input_ms), best.gemm_flops / (best.gemm_ms * 1e9),
               gbs(best.output_bytes, best.output_ms), gbs(best.gemm_bytes, best.gemm_ms));
}

// cuDNN's filter: the problem's fp32 weights in its 16-bit type and layout (NHWC: K x R x S x C).
void prepare_cudnn_filter(const Problem& p, nova_layout_t layout, Cudnn& dnn_conv) {
  narrow_all<<<blocks(p.k * p.c * 9), 256>>>(p.w32.as<float>(), dnn_conv.w16.as<unsigned short>(), p.k * p.c * 9,
                                             p.precision.nova);
  if (layout == NOVA_LAYOUT_NHWC) {
    DeviceBuffer tmp(dnn_conv.w16.bytes);
    CUDA_CHECK(cudaMemcpy(tmp.ptr, dnn_conv.w16.ptr, tmp.bytes, cudaMemcpyDeviceToDevice));
    nchw_to_nhwc<<<blocks(p.k * p.c * 9), 256>>>(tmp.as<unsigned short>(), dnn_conv.w16.as<unsigned short>(), p.k, p.c,
                                                  3, 3);
  }
}

// NOVA (one layout and algorithm) against cuDNN on the same input: plain launches and graph
// replay, one table row and one speed.csv row; at batch 32 also the stage profile.
void measure(Bench& b, const Options& o, const Layer& l, const Problem& p, nova_layout_t layout, nova_algo_t algorithm) {
  const nova_conv_desc_t d = asked_desc(p, o, layout, algorithm);
  const char* name = nullptr;
  if (algorithm == NOVA_ALGO_FUSED && nova_conv_transform_name(b.nova, &d, &name) == NOVA_STATUS_NOT_SUPPORTED) return;
  NOVA_CHECK(nova_conv_transform_name(b.nova, &d, &name));
  const std::string lay = std::string(layout_name(layout)) + (algorithm == NOVA_ALGO_FUSED        ? "-f"
                                                              : algorithm == NOVA_ALGO_THREE_PASS ? "-3"
                                                                                                  : "");
  DeviceBuffer x(p.x16.bytes), y(sizeof(unsigned short) * p.n * p.k * p.h * p.w);
  input_in_layout(p, layout, x);
  size_t ws_bytes = 0;
  NOVA_CHECK(nova_conv_workspace_size(b.nova, &d, &ws_bytes));
  DeviceBuffer ws(ws_bytes);
  NOVA_CHECK(nova_filter_transform(b.nova, &d, p.w32.as<float>(), 1));
  auto nova_run = [&] { NOVA_CHECK(nova_conv_forward(b.nova, &d, x.ptr, p.w32.as<float>(), 1, nullptr, 0, y.ptr, ws.ptr, ws.bytes)); };
  Cudnn dnn_conv(b.dnn, p, layout);
  prepare_cudnn_filter(p, layout, dnn_conv);
  dnn_conv.find(x.ptr, y.ptr, b.stream);
  auto dnn_run = [&] { dnn_conv.run(x.ptr, y.ptr); };
  const int reps = p.n == 32 ? 30 : 100;
  const double t_nova = median_ms(b.stream, reps, nova_run) * 1e3, t_dnn = median_ms(b.stream, reps, dnn_run) * 1e3;
  const double g_nova = graph_median_ms(b.stream, reps, nova_run) * 1e3, g_dnn = graph_median_ms(b.stream, reps, dnn_run) * 1e3;
  std::printf("%-10s %4d %4d %3d %6s %-18s %9.1f %9.1f %6.2f %9.1f %9.1f %6.2f\n", l.net, l.channels, l.size, p.n,
              lay.c_str(), name, t_nova, t_dnn, t_nova / t_dnn, g_nova, g_dnn, g_nova / g_dnn);
  std::fprintf(b.speed, "%s,%d,%d,%d,%s,%s,%.2f,%.2f,%.3f,%.2f,%.2f,%.3f\n", l.net, l.channels, l.size, p.n, lay.c_str(),
               name, t_nova, t_dnn, t_nova / t_dnn, g_nova, g_dnn, g_nova / g_dnn);
  if (p.n == 32) profile_stages(b, l, p, d, lay, name, x, y, ws);
}

// ---------------------------------------------------------------------------------------------
// --frontier and --random: NOVA's configurations one by one (transform x path), by graph replay.

// A 16-bit element's value on the host.
float widen(unsigned short bits, nova_dtype_t dtype) {
  if (dtype == NOVA_DTYPE_BF16) {
    const unsigned int word = static_cast<unsigned int>(bits) << 16;
    float v;
    std::memcpy(&v, &word, sizeof v);
    return v;
  }
  __half_raw raw;
  raw.x = bits;
  return __half2float(__half(raw));
}

// Relative L2 error of y against FP64 at `samples` output elements drawn once per problem (the
// same ones for every configuration): NOVA's and cuDNN's error measured alike.
class SampledReference {
 public:
  SampledReference(const Problem& p, int samples, unsigned seed) : p_(p) {
    std::vector<unsigned short> x(p.x16.bytes / 2);
    std::vector<float> w(p.w32.bytes / 4);
    CUDA_CHECK(cudaMemcpy(x.data(), p.x16.ptr, p.x16.bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(w.data(), p.w32.ptr, p.w32.bytes, cudaMemcpyDeviceToHost));
    std::mt19937 rng(seed);
    for (int i = 0; i < samples; ++i) {
      const Sample s{static_cast<int>(rng() % p.n), static_cast<int>(rng() % p.k), static_cast<int>(rng() % p.h),
                     static_cast<int>(rng() % p.w)};
      double sum = 0;
      for (int c = 0; c < p.c; ++c)
        for (int i3 = 0; i3 < 3; ++i3)
          for (int j3 = 0; j3 < 3; ++j3) {
            const int h = s.h + i3 - 1, col = s.w + j3 - 1;  // pad 1
            if (h < 0 || h >= p.h || col < 0 || col >= p.w) continue;
            const size_t xi = ((static_cast<size_t>(s.n) * p.c + c) * p.h + h) * p.w + col;
            sum += static_cast<double>(widen(x[xi], p.precision.nova)) * w[((static_cast<size_t>(s.k) * p.c + c) * 3 + i3) * 3 + j3];
          }
      samples_.push_back(s);
      want_.push_back(sum);
    }
  }
  // y (device, the problem's dtype, `layout`) against the reference; NaN if any sample is not finite.
  double error(const DeviceBuffer& y, nova_layout_t layout) const {
    std::vector<unsigned short> got(y.bytes / 2);
    CUDA_CHECK(cudaMemcpy(got.data(), y.ptr, y.bytes, cudaMemcpyDeviceToHost));
    double e2 = 0, r2 = 0;
    for (size_t i = 0; i < samples_.size(); ++i) {
      const Sample& s = samples_[i];
      const size_t at = layout == NOVA_LAYOUT_NHWC
                            ? ((static_cast<size_t>(s.n) * p_.h + s.h) * p_.w + s.w) * p_.k + s.k
                            : ((static_cast<size_t>(s.n) * p_.k + s.k) * p_.h + s.h) * p_.w + s.w;
      const double v = widen(got[at], p_.precision.nova);
      if (!std::isfinite(v)) return NAN;
      e2 += (v - want_[i]) * (v - want_[i]), r2 += want_[i] * want_[i];
    }
    return std::sqrt(e2 / r2);
  }

 private:
  struct Sample {
    int n, k, h, w;
  };
  const Problem& p_;
  std::vector<Sample> samples_;
  std::vector<double> want_;
};

// One NOVA configuration on a problem: graph-replay median and whether it ran fused; y keeps the
// result of one plain run. Returns false where the configuration does not run (fused on a tile the
// kernel does not take).
struct ConfigResult {
  double us = 0;
  bool fused = false;
  int kernel = 0;  // nova_stage_profile_t::fused: 0 the 3-pass pipeline, 1 the mma.sync kernel, 2 the wgmma one
  int tiles = 0;   // the fused kernel's tile group
  const char* transform = nullptr;
  nova_handle_t handle = nullptr;  // the handle that ran it
  const char* kernel_name() const { return kernel == 2 ? "wgmma" : kernel == 1 ? "mma" : "3-pass"; }
};
bool run_config(Bench& b, nova_handle_t nova, const Problem& p, nova_conv_desc_t d, const DeviceBuffer& x, DeviceBuffer& y,
                int reps, ConfigResult& out) {
  if (nova_conv_transform_name(nova, &d, &out.transform) != NOVA_STATUS_SUCCESS) return false;
  size_t ws_bytes = 0;
  NOVA_CHECK(nova_conv_workspace_size(nova, &d, &ws_bytes));
  DeviceBuffer ws(ws_bytes);
  NOVA_CHECK(nova_filter_transform(nova, &d, p.w32.as<float>(), 1));
  nova_stage_profile_t prof{};
  NOVA_CHECK(nova_conv_profile(nova, &d, x.ptr, p.w32.as<float>(), 1, nullptr, 0, y.ptr, ws.ptr, ws.bytes, &prof));
  out.fused = prof.fused != 0;
  out.kernel = prof.fused;
  out.tiles = prof.fused_tiles;
  out.handle = nova;
  out.us = 1e3 * graph_median_ms(b.stream, reps, [&] {
    NOVA_CHECK(nova_conv_forward(nova, &d, x.ptr, p.w32.as<float>(), 1, nullptr, 0, y.ptr, ws.ptr, ws.bytes));
  });
  return true;
}

// Each named configuration of one problem that AUTO can take: `d`'s transform on the 3-pass pipeline
// and on each fused kernel that runs it (where both the mma.sync and the wgmma kernel do, both: AUTO
// picks between them by its cost model; the wgmma kernel on shapes whose tile groups are 8, which AUTO
// never runs, left out: the profile names the shape's group, also where a one-wave grid of a shape of 16
// launches groups of 8). Calls `each(ConfigResult)` with y holding the configuration's output.
constexpr int kWgmmaGroupTiles = 16;  // the wgmma tile group AUTO runs (fused_wgmma_kernels.hpp kWgMaxTiles)
template <typename Each>
void named_configs(Bench& b, const Problem& p, nova_conv_desc_t d, const DeviceBuffer& x, DeviceBuffer& y, int reps,
                   Each each) {
  ConfigResult r;
  d.algorithm = NOVA_ALGO_THREE_PASS;
  if (run_config(b, b.nova, p, d, x, y, reps, r)) each(r);
  d.algorithm = NOVA_ALGO_FUSED;
  if (run_config(b, b.fused_mma, p, d, x, y, reps, r) && r.kernel == 1) each(r);
  if (run_config(b, b.fused_wgmma, p, d, x, y, reps, r) && r.kernel == 2 && r.tiles == kWgmmaGroupTiles) each(r);
}

// The transforms of 3 x 3 filters, by name.
std::vector<std::string> transforms_3x3() {
  std::vector<std::string> names;
  for (int i = 0; i < nova_transform_count(); ++i) {
    nova_transform_info_t info{};
    NOVA_CHECK(nova_transform_info(i, &info));
    if (info.r == 3) names.push_back(info.name);
  }
  return names;
}

double amp2d_of(const std::string& name) {
  for (int i = 0; i < nova_transform_count(); ++i) {
    nova_transform_info_t info{};
    NOVA_CHECK(nova_transform_info(i, &info));
    if (name == info.name) return info.amp2d;
  }
  return NAN;
}

// Every transform on both paths (fused where it runs), cuDNN and AUTO's choice, each as (time,
// measured error) on the layers at batch 32 (or --batch N): the speed/accuracy frontier
// (frontier.csv), and the benchmark layers' rows of the cost model's training data.
void frontier(Bench& b, const Options& o) {
  const int batch = o.frontier_batch > 0 ? o.frontier_batch : 32;
  FILE* csv = std::fopen((o.out_dir + "/frontier.csv").c_str(), "w");
  if (!csv) std::exit(3);
  std::fprintf(csv, "layer,channels,size,batch,layout,config,transform,path,us,ratio,error,predicted,kernel\n");
  const double u = o.precision->nova == NOVA_DTYPE_BF16 ? 0x1p-8 : 0x1p-11;
  std::printf("\n== frontier, %s, batch %d: graph-replay us, ratio to cuDNN, sampled rel. L2 error vs FP64\n"
              "%-10s %4s %4s %5s %-18s %-6s %9s %6s %9s %9s\n",
              o.precision->name, batch, "net", "C", "HW", "lay", "transform", "path", "us", "ratio", "error", "model");
  for (const Layer& l : kLayers) {
    if (!o.wants(l, batch)) continue;
    const Problem p(batch, l.channels, l.k(), l.size, l.size, *o.precision, 21u);
    const SampledReference ref(p, 4096, 5u);
    for (const nova_layout_t layout : {NOVA_LAYOUT_NHWC, NOVA_LAYOUT_NCHW}) {
      DeviceBuffer x(p.x16.bytes), y(sizeof(unsigned short) * p.n * p.k * p.h * p.w);
      input_in_layout(p, layout, x);
      const auto row = [&](const char* config, const char* transform, const char* path, double us, double cudnn_us,
                           double error, double predicted, const char* kernel) {
        std::printf("%-10s %4d %4d %5s %-18s %-6s %-6s %9.1f %6.2f %9.2e %9.2e\n", l.net, l.channels, l.size,
                    layout_name(layout), transform, path, kernel, us, us / cudnn_us, error, predicted);
        std::fprintf(csv, "%s,%d,%d,%d,%s,%s,%s,%s,%.2f,%.3f,%.4e,%.4e,%s\n", l.net, l.channels, l.size, batch,
                     layout_name(layout), config, transform, path, us, us / cudnn_us, error, predicted, kernel);
      };
      Cudnn dnn_conv(b.dnn, p, layout);
      prepare_cudnn_filter(p, layout, dnn_conv);
      dnn_conv.find(x.ptr, y.ptr, b.stream);
      dnn_conv.run(x.ptr, y.ptr);
      CUDA_CHECK(cudaStreamSynchronize(b.stream));
      const double cudnn_error = ref.error(y, layout);
      const double cudnn_us = 1e3 * graph_median_ms(b.stream, 20, [&] { dnn_conv.run(x.ptr, y.ptr); });
      row("cudnn", "cudnn", "-", cudnn_us, cudnn_us, cudnn_error, NAN, "-");
      for (const std::string& name : transforms_3x3()) {
        nova_conv_desc_t d = p.desc(layout, NOVA_ALGO_AUTO, name.c_str());
        d.allow_inaccurate = 1;  // the frontier shows every transform, the budget is drawn on it
        named_configs(b, p, d, x, y, 20, [&](const ConfigResult& r) {
          row("named", name.c_str(), r.fused ? "fused" : "3-pass", r.us, cudnn_us, ref.error(y, layout),
              0.7 * u * amp2d_of(name), r.kernel_name());
        });
      }
      ConfigResult r;
      if (run_config(b, b.nova, p, p.desc(layout, NOVA_ALGO_AUTO, "auto"), x, y, 20, r))
        row("auto", r.transform, r.fused ? "fused" : "3-pass", r.us, cudnn_us, ref.error(y, layout),
            0.7 * u * amp2d_of(r.transform), r.kernel_name());
    }
  }
  std::fclose(csv);
}

// A random shape: C and K from 3 to 1536, H and W from 2 to 256, batch 1 to 64, each log-uniform,
// at most 2e11 multiply-adds of direct convolution and 5e7 elements of x and of y (so that a few
// hundred fit in minutes). With `fixed_c` (--random-c), C is that and K from 3 to it: the shapes of one
// kernel path that random C seldom reaches (the wgmma kernel's tensor-core input transform, C = 64 and
// K <= 64).
struct RandomShape {
  int n, c, k, h, w;
  nova_layout_t layout;
};
RandomShape random_shape(std::mt19937& rng, int fixed_c) {
  const auto log_uniform = [&](int lo, int hi) {
    std::uniform_real_distribution<double> t(std::log(lo), std::log(hi + 1.0));
    return std::min(hi, static_cast<int>(std::exp(t(rng))));
  };
  for (;;) {
    RandomShape s{log_uniform(1, 64), fixed_c ? fixed_c : log_uniform(3, 1536), log_uniform(3, fixed_c ? fixed_c : 1536),
                  log_uniform(2, 256), log_uniform(2, 256), rng() % 2 ? NOVA_LAYOUT_NHWC : NOVA_LAYOUT_NCHW};
    const double pixels = static_cast<double>(s.n) * s.h * s.w;
    if (9.0 * pixels * s.c * s.k <= 2e11 && pixels * std::max(s.c, s.k) <= 5e7) return s;
  }
}

// --random COUNT (--seed S): every transform within the dtype's budget on both paths, and AUTO, on
// random shapes (random.csv); then how often AUTO is within 10 % of the fastest. The fastest of ~20
// single timings is biased low by their noise (on shapes under 10 us, 11 % of AUTO's timings were more
// than 5 % slower than a timing of the same configuration), so the fastest configuration and AUTO are then
// timed again in turns (kTurns each, the median of their graph-replay medians: rows "fastest-turns"
// and "auto-turns") and AUTO's ratio is taken from those; the single-timing ratio is reported too.
void random_shapes(Bench& b, const Options& o) {
  constexpr int kTurns = 3;
  FILE* csv = std::fopen((o.out_dir + "/random.csv").c_str(), "w");
  if (!csv) std::exit(3);
  std::fprintf(csv, "shape,n,c,k,h,w,layout,config,transform,path,us,kernel\n");
  std::mt19937 rng(o.seed);
  int within = 0, within_single = 0;
  double worst = 1;
  std::string worst_shape;
  for (int i = 0; i < o.random_count; ++i) {
    const RandomShape s = random_shape(rng, o.random_c);
    const Problem p(s.n, s.c, s.k, s.h, s.w, *o.precision, 100u + static_cast<unsigned>(i));
    DeviceBuffer x(p.x16.bytes), y(sizeof(unsigned short) * s.n * s.k * s.h * s.w);
    input_in_layout(p, s.layout, x);
    const auto row = [&](const char* config, const ConfigResult& r) {
      std::fprintf(csv, "%d,%d,%d,%d,%d,%d,%s,%s,%s,%s,%.2f,%s\n", i, s.n, s.c, s.k, s.h, s.w, layout_name(s.layout),
                   config, r.transform, r.fused ? "fused" : "3-pass", r.us, r.kernel_name());
    };
    ConfigResult fastest_config;
    fastest_config.us = INFINITY;
    std::string fastest_name;  // a descriptor holds the name's pointer: keep the string
    for (const std::string& name : transforms_3x3())
      named_configs(b, p, p.desc(s.layout, NOVA_ALGO_AUTO, name.c_str()), x, y, 10, [&](const ConfigResult& r) {
        row("named", r);
        if (r.us < fastest_config.us) fastest_config = r, fastest_name = name;
      });
    const double best = fastest_config.us;
    const nova_conv_desc_t automatic = p.desc(s.layout, NOVA_ALGO_AUTO, "auto");
    ConfigResult r;
    if (!run_config(b, b.nova, p, automatic, x, y, 10, r)) {
      std::fprintf(stderr, "AUTO found no transform for random shape %d\n", i);
      std::exit(3);
    }
    row("auto", r);
    if (r.us <= 1.10 * best) ++within_single;
    ConfigResult turns[2][kTurns];
    const nova_conv_desc_t fastest =
        p.desc(s.layout, fastest_config.fused ? NOVA_ALGO_FUSED : NOVA_ALGO_THREE_PASS, fastest_name.c_str());
    for (int turn = 0; turn < kTurns; ++turn)
      if (!run_config(b, fastest_config.handle, p, fastest, x, y, 10, turns[0][turn]) ||
          !run_config(b, b.nova, p, automatic, x, y, 10, turns[1][turn])) {
        std::fprintf(stderr, "random shape %d: a configuration that ran before does not run again\n", i);
        std::exit(3);
      }
    const auto median = [](ConfigResult (&results)[kTurns]) {
      std::sort(results, results + kTurns, [](const ConfigResult& a, const ConfigResult& b) { return a.us < b.us; });
      return results[kTurns / 2];
    };
    const ConfigResult fastest_turns = median(turns[0]), auto_turns = median(turns[1]);
    row("fastest-turns", fastest_turns);
    row("auto-turns", auto_turns);
    const double ratio = auto_turns.us / fastest_turns.us;
    if (ratio <= 1.10) ++within;
    if (ratio > worst) {
      worst = ratio;
      worst_shape = std::to_string(s.n) + "x" + std::to_string(s.c) + "->" + std::to_string(s.k) + "@" +
                    std::to_string(s.h) + "x" + std::to_string(s.w) + " " + layout_name(s.layout) + " (auto " +
                    r.transform + (r.fused ? " fused" : " 3-pass") + ")";
    }
    if ((i + 1) % 25 == 0) std::printf("random shapes: %d of %d\n", i + 1, o.random_count);
  }
  std::fclose(csv);
  std::printf("\n== AUTO on %d random shapes (seed %u): within 10%% of the fastest configuration on %d (%.1f%%) timed "
              "in turns, %d (%.1f%%) by single timings; worst %.2fx: %s\n",
              o.random_count, o.seed, within, 100.0 * within / o.random_count, within_single,
              100.0 * within_single / o.random_count, worst, worst_shape.c_str());
}

// --epilogue: the cost of bias + ReLU inside NOVA's forward (the fused kernel's epilogue; the
// 3-pass output transform's), graph replay, each batch-32 layer in both layouts with AUTO and the
// fused kernel forced.
void epilogue_cost(Bench& b, const Options& o) {
  FILE* csv = std::fopen((o.out_dir + "/epilogue.csv").c_str(), "w");
  if (!csv) {
    std::fprintf(stderr, "cannot write into %s\n", o.out_dir.c_str());
    std::exit(3);
  }
  std::fprintf(csv, "layer,channels,size,batch,layout,transform,plain_us,bias_relu_us,added\n");
  std::printf("\n== bias + ReLU in the forward, %s, batch 32: graph-replay median us\n%-10s %4s %4s %6s %-18s %9s %9s %7s\n",
              o.precision->name, "net", "C", "HW", "lay", "transform", "plain", "bias+relu", "added");
  for (const Layer& l : kLayers) {
    const Problem p(32, l.channels, l.k(), l.size, l.size, *o.precision, 21u);
    std::vector<float> bias(static_cast<size_t>(p.k));
    for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.01f * static_cast<float>(i % 7) - 0.03f;
    DeviceBuffer bias_d(sizeof(float) * bias.size());
    CUDA_CHECK(cudaMemcpy(bias_d.ptr, bias.data(), bias_d.bytes, cudaMemcpyHostToDevice));
    for (const nova_layout_t layout : {NOVA_LAYOUT_NHWC, NOVA_LAYOUT_NCHW})
      for (const nova_algo_t algorithm : {NOVA_ALGO_AUTO, NOVA_ALGO_FUSED}) {
        const nova_conv_desc_t d = asked_desc(p, o, layout, algorithm);
        const char* name = nullptr;
        if (nova_conv_transform_name(b.nova, &d, &name) != NOVA_STATUS_SUCCESS) continue;
        DeviceBuffer x(p.x16.bytes), y(sizeof(unsigned short) * p.n * p.k * p.h * p.w);
        input_in_layout(p, layout, x);
        size_t ws_bytes = 0;
        NOVA_CHECK(nova_conv_workspace_size(b.nova, &d, &ws_bytes));
        DeviceBuffer ws(ws_bytes);
        const auto forward_us = [&](const float* with_bias, int relu) {
          NOVA_CHECK(nova_filter_transform(b.nova, &d, p.w32.as<float>(), 1));
          return 1e3 * graph_median_ms(b.stream, 30, [&] {
            NOVA_CHECK(nova_conv_forward(b.nova, &d, x.ptr, p.w32.as<float>(), 1, with_bias, relu, y.ptr, ws.ptr, ws.bytes));
          });
        };
        const double plain = forward_us(nullptr, 0), epilogue = forward_us(bias_d.as<float>(), 1);
        const std::string lay = std::string(layout_name(layout)) + (algorithm == NOVA_ALGO_FUSED ? "-f" : "");
        std::printf("%-10s %4d %4d %6s %-18s %9.1f %9.1f %6.1f%%\n", l.net, l.channels, l.size, lay.c_str(), name, plain,
                    epilogue, 100.0 * (epilogue / plain - 1.0));
        std::fprintf(csv, "%s,%d,%d,32,%s,%s,%.2f,%.2f,%.4f\n", l.net, l.channels, l.size, lay.c_str(), name, plain, epilogue,
                     epilogue / plain - 1.0);
      }
  }
  std::fclose(csv);
}

void print_stage_table(const Bench& b) {
  std::printf("\n== stages at batch 32 (us; filter = uncached transform; %% of copy bandwidth for the fewest bytes; "
              "GEMM TFLOP/s)\n");
  std::printf("%-10s %4s %4s %6s %-18s %8s %8s %8s %8s %8s %7s %8s\n", "net", "C", "HW", "lay", "transform", "filter",
              "input", "gemm", "output", "in BW", "TFLOP/s", "out BW");
  for (const auto& line : b.stage_lines) std::printf("%s\n", line.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_options(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: %s OUT_DIR [--quick] [--channels | --frontier [--batch N] | --epilogue | --random COUNT [--seed S] [--random-c C]]\n"
                 "       [--layer C,HW,N | --shape C,K,HW,N]\n"
                 "       [--transform NAME] [--dtype fp16|bf16]\n"
                 "--transform NAME runs that transform even where its predicted error exceeds the runtime's\n"
                 "error budget (which AUTO keeps to); the error column shows what it measured.\n",
                 argv[0]);
    return 2;
  }
  if (o.single_layer() && !known_layer(o)) {
    std::fprintf(stderr, "--layer %d,%d,%d: no layer of the bench has C = %d at %dx%d; the layers (C,HW):", o.only_c,
                 o.only_hw, o.only_n, o.only_c, o.only_hw, o.only_hw);
    for (const Layer& l : kLayers) std::fprintf(stderr, " %d,%d", l.channels, l.size);
    std::fprintf(stderr, "; with --channels:");
    for (const Layer& l : kChannelLayers) std::fprintf(stderr, " %d,%d", l.channels, l.size);
    std::fprintf(stderr, "\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIP: no CUDA device\n");
    return 0;
  }
  Bench b;
  set_up(b, o);
  if (o.frontier || o.epilogue || o.random_count > 0) {
    if (o.frontier) frontier(b, o);
    if (o.epilogue) epilogue_cost(b, o);
    if (o.random_count > 0) random_shapes(b, o);
    tear_down(b);
    return 0;
  }
  // Each layout with the default algorithm (AUTO: fused or 3-pass) and with each algorithm asked
  // for: the 3-pass pipeline (NHWC-3, NCHW-3) and the fused kernel where it runs (-f).
  std::printf("\n== speed, %s: median us, ratio nova/cuDNN\n%-10s %4s %4s %3s %6s %-18s %9s %9s %6s %9s %9s %6s\n",
              o.precision->name, "net", "C", "HW", "N", "lay", "transform", "nova", "cudnn", "ratio", "nova-g", "cudnn-g",
              "ratio");
  const auto run_layer = [&](const Layer& l, int batch) {
    const Problem p(batch, l.channels, l.k(), l.size, l.size, *o.precision, 21u);
    for (const nova_layout_t layout : {NOVA_LAYOUT_NHWC, NOVA_LAYOUT_NCHW})
      for (const nova_algo_t algorithm : {NOVA_ALGO_AUTO, NOVA_ALGO_THREE_PASS, NOVA_ALGO_FUSED})
        measure(b, o, l, p, layout, algorithm);
  };
  if (o.shape_n > 0) {
    const std::string name = std::to_string(o.shape.channels) + "->" + std::to_string(o.shape.outputs);  // as kChannelLayers
    o.shape.net = name.c_str();
    run_layer(o.shape, o.shape_n);
  }
  if (o.channels)
    for (const Layer& l : kChannelLayers) run_layer(l, 32);
  for (const int batch : {1, 8, 32})
    for (const Layer& l : kLayers) {
      if (o.channels || o.shape_n > 0 || !o.wants(l, batch)) continue;
      run_layer(l, batch);
    }
  print_stage_table(b);
  tear_down(b);
  return 0;
}
