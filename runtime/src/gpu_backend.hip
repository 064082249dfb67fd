// GPU backend: the 3-pass pipeline (input transform -> batched GEMM -> output transform with the
// bias/ReLU epilogue; fp16, bf16 or fp32) over the generated kernels, or for fp16 and bf16 the fused
// kernel (fused_kernels.hpp) where its tile allows, in either layout; the handle caches the
// transformed filters (filter_cache.hpp). HIP source:
// nvcc compiles it as CUDA through hip_compat.h and calls cuBLAS; a HIP build (NOVA_ENABLE_HIP, which
// sets NOVA_ENABLE_HIPBLAS=1) calls hipBLAS through its hipDataType API: hipBLAS 2.x (ROCm 6.0 to 6.4)
// with HIPBLAS_V2 defined, hipBLAS 3.x (ROCm 7), where it is the only API. Without NOVA_ENABLE_HIPBLAS
// the 3-pass path answers NOT_SUPPORTED (Debian packages no hipBLAS, so the AMD compile check builds
// everything but that call).
#include "backend.hpp"

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "nova/kernels/fused_wgmma_kernels.hpp"
#include "nova/kernels/hip_compat.h"
#include "nova/kernels/transform_registry_gpu.hpp"
#include "gpu_cost_model.hpp"

#if defined(__HIP__) || defined(__HIPCC__)
#if NOVA_ENABLE_HIPBLAS
// hipBLAS 2.x declares the hipDataType/hipblasComputeType_t API only with HIPBLAS_V2 (its default API,
// on hipblasDatatype_t, was removed in hipBLAS 3.0, which defines HIPBLAS_V2 itself).
#ifndef HIPBLAS_V2
#define HIPBLAS_V2
#endif
#include <hipblas/hipblas.h>
#if defined(hipblasVersionMajor) && hipblasVersionMajor < 2
#error "NOVA needs hipBLAS 2.0 or later (ROCm 6.0 or later): hipblasGemmStridedBatchedEx with hipDataType"
#endif
#endif
#else
#include <cublas_v2.h>
#endif

namespace nova::runtime {
namespace {

using namespace kernels;  // the launchers and kernels this backend drives

#if defined(__HIP__) || defined(__HIPCC__)
#if NOVA_ENABLE_HIPBLAS
using BlasHandle = hipblasHandle_t;
#else
using BlasHandle = void*;
#endif
#else
using BlasHandle = cublasHandle_t;
#endif

// The GEMM's type for V and U of a dtype (the storage type is the I/O type), and for M where it is
// stored narrow (product_element_bytes); accumulation is fp32 for all.
#if defined(__HIP__) || defined(__HIPCC__)
#if NOVA_ENABLE_HIPBLAS
hipDataType blas_input_type(nova_dtype_t dtype) {
  switch (dtype) {
    case NOVA_DTYPE_FP16: return HIP_R_16F;
    case NOVA_DTYPE_BF16: return HIP_R_16BF;
    case NOVA_DTYPE_FP32: break;
  }
  return HIP_R_32F;
}
#endif
#else
cudaDataType_t blas_input_type(nova_dtype_t dtype) {
  switch (dtype) {
    case NOVA_DTYPE_FP16: return CUDA_R_16F;
    case NOVA_DTYPE_BF16: return CUDA_R_16BF;
    case NOVA_DTYPE_FP32: break;
  }
  return CUDA_R_32F;
}
#endif

// M_xi (K x P) = U_xi (K x C) V_xi (C x P) for every xi, fp32 accumulation, U [K][C] row-major.
// NCHW images: V [C][P] and M [K][P], so column-major M^T (P x K) = V^T (P x C) U^T (C x K).
// NHWC images: V [P][C] and M [P][K] (channels fastest), so column-major M (K x P) = U (K x C, from
// U^T by transposition) V (C x P).
// M in fp32, or (narrow) in the storage type, rounded once from the fp32 sums.
nova_status_t batched_gemm(BlasHandle blas, nova_dtype_t dtype, bool nhwc, const void* U, const void* V, void* M,
                           bool narrow, int K, int C, int P, int batches) {
  const float one = 1.0f, zero = 0.0f;
  const long long stride_v = static_cast<long long>(C) * P, stride_u = static_cast<long long>(K) * C,
                  stride_m = static_cast<long long>(K) * P;
  const int rows = nhwc ? K : P, cols = nhwc ? P : K;  // of the column-major result
  const void* a = nhwc ? U : V;
  const void* b = nhwc ? V : U;
  const int ld_a = nhwc ? C : P, ld_b = C, ld_m = nhwc ? K : P;
  const long long stride_a = nhwc ? stride_u : stride_v, stride_b = nhwc ? stride_v : stride_u;
#if defined(__HIP__) || defined(__HIPCC__)
#if NOVA_ENABLE_HIPBLAS
  const hipDataType in = blas_input_type(dtype);
  const hipblasStatus_t st = hipblasGemmStridedBatchedEx(
      blas, nhwc ? HIPBLAS_OP_T : HIPBLAS_OP_N, HIPBLAS_OP_N, rows, cols, C, &one, a, in, ld_a, stride_a, b, in, ld_b,
      stride_b, &zero, M, narrow ? in : HIP_R_32F, ld_m, stride_m, batches, HIPBLAS_COMPUTE_32F, HIPBLAS_GEMM_DEFAULT);
  return st == HIPBLAS_STATUS_SUCCESS ? NOVA_STATUS_SUCCESS : NOVA_STATUS_BACKEND_ERROR;
#else
  (void)blas, (void)dtype, (void)M, (void)narrow, (void)batches, (void)one, (void)zero, (void)rows, (void)cols, (void)a, (void)b;
  (void)ld_a, (void)ld_b, (void)ld_m, (void)stride_a, (void)stride_b, (void)stride_m;
  return NOVA_STATUS_NOT_SUPPORTED;  // built without hipBLAS
#endif
#else
  const cudaDataType_t in = blas_input_type(dtype);
  const cublasStatus_t st = cublasGemmStridedBatchedEx(
      blas, nhwc ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, rows, cols, C, &one, a, in, ld_a, stride_a, b, in, ld_b,
      stride_b, &zero, M, narrow ? in : CUDA_R_32F, ld_m, stride_m, batches, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  return st == CUBLAS_STATUS_SUCCESS ? NOVA_STATUS_SUCCESS : NOVA_STATUS_BACKEND_ERROR;
#endif
}

// f(std::type_identity<T>{}) for T the device type that holds x, y, V and U of `dtype`.
template <class F>
nova_status_t with_storage_type(nova_dtype_t dtype, F&& f) {
  switch (dtype) {
    case NOVA_DTYPE_FP16: return f(std::type_identity<__half>{});
    case NOVA_DTYPE_BF16: return f(std::type_identity<hip_bfloat16>{});
    case NOVA_DTYPE_FP32: break;
  }
  return f(std::type_identity<float>{});
}

nova_status_t status_of(hipError_t e) {
  if (e == hipSuccess) return NOVA_STATUS_SUCCESS;
  return e == hipErrorOutOfMemory ? NOVA_STATUS_ALLOCATION_FAILED : NOVA_STATUS_BACKEND_ERROR;
}

// Records device events between stages when a profile is requested; the first failing event call
// is reported by finish().
class StageTimer {
 public:
  StageTimer(hipStream_t stream, nova_stage_profile_t* profile) : stream_(stream), profile_(profile) {
    if (!profile_) return;
    for (auto& e : events_) keep(hipEventCreate(&e));
    mark(0);
  }
  ~StageTimer() {
    if (!profile_) return;
    for (auto& e : events_)
      if (e) (void)hipEventDestroy(e);  // nothing to report to from a destructor
  }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;
  void mark(int stage) {
    if (profile_ && error_ == hipSuccess) keep(hipEventRecord(events_[stage], stream_));
  }
  nova_status_t finish() {
    if (!profile_) return NOVA_STATUS_SUCCESS;
    keep(hipEventSynchronize(events_[3]));
    float ms[3] = {};
    for (int i = 0; i < 3 && error_ == hipSuccess; ++i) keep(hipEventElapsedTime(&ms[i], events_[i], events_[i + 1]));
    profile_->input_ms = ms[0], profile_->gemm_ms = ms[1], profile_->output_ms = ms[2];
    return status_of(error_);
  }

 private:
  void keep(hipError_t e) {
    if (error_ == hipSuccess) error_ = e;
  }
  hipStream_t stream_;
  nova_stage_profile_t* profile_;
  hipEvent_t events_[4] = {};
  hipError_t error_ = hipSuccess;
};

// The kernels of loaded transforms (nova/transform_registration.hpp), compiled by the transform's
// own compiler the first time a device of an architecture needs a group of them, loaded into every
// context (cudaLibraryLoadData) and kept for the process. A failure is kept too: it is not retried.
const GpuTransformEntry* loaded_kernels(const LoadedTransform& source, const std::string& arch, bool fused,
                                        nova_status_t& status) {
#if defined(__HIP__) || defined(__HIPCC__)
  (void)source, (void)arch, (void)fused;
  status = NOVA_STATUS_NOT_SUPPORTED;  // hipModuleLaunchKernel would need its own launch path
  return nullptr;
#else
  // One lock per transform and architecture, held while it compiles: a second thread that needs the
  // same kernels waits for them, one that needs another transform's does not.
  struct Modules {
    std::mutex mutex;
    GpuTransformEntry kernels{};
    bool done[2] = {};
    nova_status_t status[2] = {};
  };
  static std::mutex map_mutex;
  static std::map<std::pair<const LoadedTransform*, std::string>, Modules> modules;  // nodes never move
  Modules* found = nullptr;
  {
    const std::lock_guard lock(map_mutex);
    found = &modules[{&source, arch}];
  }
  Modules& m = *found;
  const std::lock_guard lock(m.mutex);
  const int group = fused ? 1 : 0;
  if (!m.done[group]) {
    m.done[group] = true;
    m.status[group] = NOVA_STATUS_COMPILE_FAILED;
    const std::string image = source.compile(arch, fused);
    cudaLibrary_t library = nullptr;
    if (!image.empty() &&
        cudaLibraryLoadData(&library, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0) == cudaSuccess) {
      m.status[group] = NOVA_STATUS_SUCCESS;
      for (int i = 0; i < kKernelsPerTransform; ++i) {
        const KernelId id = kernel_id(i);
        if ((kernel_group(id.kind) == KernelGroup::fused) != fused || !kernel_emitted(id, source.m, source.r)) continue;
        cudaKernel_t kernel = nullptr;
        if (cudaLibraryGetKernel(&kernel, library, kernel_symbol(source.name, id).c_str()) != cudaSuccess)
          m.status[group] = NOVA_STATUS_COMPILE_FAILED;
        m.kernels.kernels[i] = reinterpret_cast<const void*>(kernel);
      }
    }
  }
  status = m.status[group];
  return status == NOVA_STATUS_SUCCESS ? &m.kernels : nullptr;
#endif
}

// The device's peak memory bandwidth in GB/s (two transfers a memory clock over the bus), for the
// cost model; 0 where the device does not report its memory clock or bus width.
double memory_gbps(int device) {
  int clock_khz = 0, bus_bits = 0;
  if (hipDeviceGetAttribute(&clock_khz, hipDeviceAttributeMemoryClockRate, device) != hipSuccess ||
      hipDeviceGetAttribute(&bus_bits, hipDeviceAttributeMemoryBusWidth, device) != hipSuccess)
    return 0;
  return 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
}

// The architecture a run-time compiler targets for `device`: sm_<major><minor>, with the "a" suffix
// on sm_90 (wgmma); gfx... on AMD.
std::string device_arch(int device) {
#if defined(__HIP__) || defined(__HIPCC__)
  hipDeviceProp_t p{};
  return hipGetDeviceProperties(&p, device) == hipSuccess ? std::string(p.gcnArchName) : std::string();
#else
  int major = 0, minor = 0;
  if (hipDeviceGetAttribute(&major, hipDeviceAttributeComputeCapabilityMajor, device) != hipSuccess ||
      hipDeviceGetAttribute(&minor, hipDeviceAttributeComputeCapabilityMinor, device) != hipSuccess)
    return {};
  return "sm_" + std::to_string(major * 10 + minor) + (major == 9 && minor == 0 ? "a" : "");
#endif
}

// Which fused kernel a forward runs where both could: NOVA_FUSED_KERNEL=mma or =wgmma forces one
// wherever it runs (the tests and the bench's before/after comparisons), anything else keeps the
// measured choice.
enum class FusedKernelChoice { measured, mma, wgmma };
FusedKernelChoice fused_kernel_choice() {
  const char* kernel = std::getenv("NOVA_FUSED_KERNEL");
  if (kernel && std::string_view(kernel) == "mma") return FusedKernelChoice::mma;
  if (kernel && std::string_view(kernel) == "wgmma") return FusedKernelChoice::wgmma;
  return FusedKernelChoice::measured;
}

// The mma.sync kernel's row split (fused_split_launch): NOVA_FUSED_ROW_SPLIT=1, 2, 4 or 8 forces it
// wherever it fits (1: fused_launch's launch on every grid) for the bench's comparisons; anything
// else (0) leaves it to the cost model.
int fused_row_split_choice() {
  const char* split = std::getenv("NOVA_FUSED_ROW_SPLIT");
  if (!split) return 0;
  const std::string_view s(split);
  return s == "1" ? 1 : s == "2" ? 2 : s == "4" ? 4 : s == "8" ? 8 : 0;
}

// Answers to a question that costs the cost model's trees, remembered per key (the oldest of
// `capacity` goes first) and asked from any thread.
template <typename Key, typename Answer, std::size_t capacity>
class RememberedAnswers {
 public:
  template <typename Same, typename Compute>
  Answer get(const Key& key, Same same, Compute compute) const {
    {
      std::lock_guard lock(mutex_);
      for (const auto& [k, answer] : answers_)
        if (same(k, key)) return answer;
    }
    const Answer answer = compute();
    std::lock_guard lock(mutex_);
    if (answers_.size() == capacity) answers_.erase(answers_.begin());
    answers_.emplace_back(key, answer);  // another thread may have added it meanwhile: the same answer
    return answer;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::vector<std::pair<Key, Answer>> answers_;  // oldest first
};

class GpuBackend final : public Backend {
 public:
  GpuBackend(hipStream_t stream, BlasHandle blas, const FusedDevice& device, double memory_gbps, std::string arch)
      : stream_(stream), blas_(blas), device_(device), memory_gbps_(memory_gbps), arch_(std::move(arch)) {}
  ~GpuBackend() override {
#if !(defined(__HIP__) || defined(__HIPCC__))
    cublasDestroy(blas_);
#elif NOVA_ENABLE_HIPBLAS
    hipblasDestroy(blas_);
#endif
  }
  GpuBackend(const GpuBackend&) = delete;
  GpuBackend& operator=(const GpuBackend&) = delete;

  int transformed_element_bytes(nova_dtype_t dtype) const override { return dtype_traits(dtype).bytes; }

  bool can_fuse(const ConvShape& s, const TransformEntry& t) const override {
    if (s.dtype == NOVA_DTYPE_FP32 || s.c > INT_MAX || s.k > INT_MAX) return false;
    const LoadedTransform* loaded = loaded_source(t);
    const bool has_kernel = t.gpu ? t.gpu->kernel({KernelKind::fused_mma}) != nullptr : loaded && loaded->has_fused_kernels;
    return has_kernel && (wgmma(s, t) || launch_of(s, t).tile_groups > 0);
  }

  int filter_layout(const ConvShape& s, const TransformEntry& t) const override {
    if (!fuses(s, t)) return 0;
    return device_.mfma ? 3 : wgmma(s, t) ? 2 : 1;
  }

  // Whether a fused forward runs the wgmma kernel (its own filter layout) rather than the mma.sync
  // one: where it runs at all (an sm_90 device, a build with sm_90a code, a V slot pair in shared
  // memory), as NOVA_FUSED_KERNEL asks, else where the cost model predicts it faster
  // (fused_runs_wgmma: two predictions, which every forward would ask, hence remembered).
  bool wgmma(const ConvShape& s, const TransformEntry& t) const {
    const int C = static_cast<int>(s.c), K = static_cast<int>(s.k);
    if (device_.mfma || !fused_uses_wgmma(device_, t.n, t.m, C, K)) return false;
    if (fused_kernel_ != FusedKernelChoice::measured) return fused_kernel_ == FusedKernelChoice::wgmma;
    const auto same = [](const ShapeAndTransform& a, const ShapeAndTransform& b) {
      return a.second == b.second && same_problem(a.first, b.first);
    };
    return wgmma_choices_.get({s, &t}, same, [&] { return fused_runs_wgmma(s, t, device_.shared_limit, cost_device()); });
  }

  // What the cost model prices the forwards by: this device's SMs and memory bandwidth.
  CostDevice cost_device() const { return {device_.multiprocessors, memory_gbps_}; }

  // The cost model's time for a fused forward, of whichever fused kernel runs it.
  double predicted_fused(const ConvShape& s, const TransformEntry& t) const {
    return wgmma(s, t) ? predicted_wg_fused_us(s, t, cost_device()) : predicted_fused_us(s, t, launch_of(s, t), cost_device());
  }

  // AUTO fuses where the cost model (gpu_cost_model.hpp) predicts the fastest fused transform within
  // the error budget to beat the fastest 3-pass one; fp32 has no fused kernel. That prices every
  // transform on both paths (about 2,400 tree nodes a prediction), and a forward of a named transform
  // asks it on every call, so the answer is remembered per shape.
  bool fuses_by_default(const ConvShape& s) const override {
    if (s.dtype == NOVA_DTYPE_FP32) return false;
    return auto_paths_.get(s, same_problem, [&] { return fusion_pays(s); });
  }

  // The mma.sync kernel's launch: of its row splits, the one the cost model predicts fastest
  // (fastest_fused_launch), or the one NOVA_FUSED_ROW_SPLIT forces; or on AMD CDNA the MFMA
  // kernel's launch (which the cost model, fitted on an H200, prices as the former's: uncalibrated
  // there).
  FusedLaunch launch_of(const ConvShape& s, const TransformEntry& t) const {
    const int C = static_cast<int>(s.c), K = static_cast<int>(s.k);
    if (device_.mfma)
      return fused_mfma_launch(t.n, C, K, tile_shape(s, t).tiles, device_.shared_limit, device_.multiprocessors);
    if (row_split_ > 0) return fused_split_launch(t.n, t.m, C, K, row_split_, device_.shared_limit);
    return fastest_fused_launch(s, t, device_.shared_limit, cost_device());
  }

  // The predicted time on the path fuses() takes (fp32: the bytes the 3-pass pipeline moves). The
  // fused kernel's ties go to fewer transform operations; the 3-pass ones to the lower amp2D.
  PathCost forward_cost(const ConvShape& s, const TransformEntry& t) const override {
    if (s.dtype == NOVA_DTYPE_FP32) return Backend::forward_cost(s, t);
    if (!fuses(s, t)) return {predicted_three_pass_us(s, t, product_element_bytes(s, t), cost_device()), 0};
    return {predicted_fused(s, t), static_cast<double>(t.input_ops + t.output_ops)};
  }

  // The 3-pass pipeline keeps M in the 16-bit storage type wherever the error budget allows it.
  int product_element_bytes(const ConvShape& s, const TransformEntry& t) const override {
    return narrow_product_fits(t, s) ? 2 : 4;
  }

  nova_status_t allocate(size_t bytes, Buffer& out) override {
    void* p = nullptr;
    if (const hipError_t e = hipMalloc(&p, bytes ? bytes : 1); e != hipSuccess) return status_of(e);
    out = Buffer(p, [](void* q) { (void)hipFree(q); });  // a deleter has no one to report to
    return NOVA_STATUS_SUCCESS;
  }

  // The fused kernel's filter has K and C padded to its blocks.
  size_t filter_bytes(const ConvShape& s, const TransformEntry& t) const override {
    if (!fuses(s, t)) return Backend::filter_bytes(s, t);
    const int K = static_cast<int>(s.k), C = static_cast<int>(s.c);
    return static_cast<size_t>(wgmma(s, t) ? fused_wg_filter_elements(t.n, K, C) : fused_filter_elements(t.n, K, C)) *
           static_cast<size_t>(transformed_element_bytes(s.dtype));
  }

  // The fused kernel's filter order is made from the usual one, transformed first into scratch.
  size_t filter_scratch_bytes(const ConvShape& s, const TransformEntry& t) const override {
    return fuses(s, t) ? Backend::filter_bytes(s, t) : 0;
  }

  nova_status_t transform_filter(const ConvShape& s, const TransformEntry& t, const float* weights, void* filter,
                                 void* scratch) override {
    nova_status_t status = NOVA_STATUS_SUCCESS;
    const GpuTransformEntry* g = kernels_of(t, false, status);
    if (!g) return status;
    const int K = static_cast<int>(s.k), C = static_cast<int>(s.c);
    return with_storage_type(s.dtype, [&](auto type) {
      using T = typename decltype(type)::type;
      const Launchers<T> launch({t.m, t.r, t.n}, *g);
      if constexpr (!std::is_same_v<T, float>)
        if (fuses(s, t)) {
          auto* plain = static_cast<T*>(scratch);
          if (const hipError_t e = launch.filter(weights, plain, K, C, stream_); e != hipSuccess) return status_of(e);
          T* fused = static_cast<T*>(filter);
          if (device_.mfma) return status_of(launch_fused_filter_order<T, MfmaFilterOrder>(plain, fused, t.n * t.n, K, C, stream_));
          return status_of(wgmma(s, t) ? launch_fused_wg_filter_order(plain, fused, t.n, K, C, stream_)
                                       : launch_fused_filter_order(plain, fused, t.n * t.n, K, C, stream_));
        }
      return status_of(launch.filter(weights, static_cast<T*>(filter), K, C, stream_));
    });
  }

  nova_status_t forward(const ConvShape& s, const TransformEntry& t, const void* x, const void* filter, const float* bias,
                        int relu, void* y, void* workspace, nova_stage_profile_t* profile) override {
    const bool fused = fuses(s, t);
    nova_status_t status = NOVA_STATUS_SUCCESS;
    const GpuTransformEntry* g = kernels_of(t, fused, status);
    if (!g) return status;
    if (fused)
      if (const nova_status_t st = opt_in(*g); st != NOVA_STATUS_SUCCESS) return st;
    const Tiling tiling = tile_shape(s, t);
    const int N = static_cast<int>(s.n), C = static_cast<int>(s.c), K = static_cast<int>(s.k), H = static_cast<int>(s.h),
              W = static_cast<int>(s.w), P = static_cast<int>(tiling.tiles);
    const bool nhwc = s.layout == NOVA_LAYOUT_NHWC;
    const Layout layout = nhwc ? Layout::nhwc : Layout::nchw;

    StageTimer timer(stream_, profile);
    // NHWC fused: its 16-byte stores of y and channel-pair loads of x (NCHW: single elements).
    const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
    if (fused && nhwc && (!aligned(x) || !aligned(y))) return NOVA_STATUS_MISALIGNED;
    return with_storage_type(s.dtype, [&](auto type) {
      using T = typename decltype(type)::type;
      const Launchers<T> launch({t.m, t.r, t.n}, *g);
      if (fused) {  // the GEMM stage is the fused kernel; the input and output stages are empty
        timer.mark(1);
        FusedDevice kernel = device_;  // the launcher runs the wgmma kernel, and splits rows, where this says so
        kernel.wgmma = wgmma(s, t);
        kernel.kronecker_terms = storage_of<T>() == Storage::f16 ? t.kronecker_terms_fp16 : t.kronecker_terms_bf16;
        const FusedLaunch mma_launch = kernel.wgmma ? FusedLaunch{} : launch_of(s, t);  // mma.sync, or MFMA on AMD
        if (!kernel.wgmma && !kernel.mfma) kernel.row_split = mma_launch.row_split;
        if (profile) {
          profile->fused = kernel.wgmma ? 2 : 1;
          profile->fused_tiles = kernel.wgmma ? fused_wg_tiles(t.n, t.m, C, K, kernel.shared_limit)
                                 : kernel.mfma ? kMfmaSide * mma_launch.tile_groups
                                               : fused_block_tiles(mma_launch.tile_groups);
        }
        bool tc_input = false;
        if (const hipError_t e = launch.fused(layout, static_cast<const T*>(x), static_cast<const T*>(filter),
                                              static_cast<T*>(y), bias, relu, N, C, H, W, K, s.pad, kernel, stream_, &tc_input);
            e != hipSuccess)
          return status_of(e);
        if (profile) profile->fused_input = tc_input ? 1 : 0;
        timer.mark(2);
        timer.mark(3);
        return timer.finish();
      }
      const int product_bytes = product_element_bytes(s, t);
      const bool narrow = product_bytes == 2;
      void* V = workspace;  // then M (Backend::workspace_bytes)
      void* M = static_cast<char*>(workspace) + workspace_bytes(s, t) -
                static_cast<size_t>(tiling.product_elements()) * static_cast<size_t>(product_bytes);
      if (const hipError_t e = launch.input(layout, static_cast<const T*>(x), static_cast<T*>(V), N, C, H, W, s.pad, stream_);
          e != hipSuccess)
        return status_of(e);
      timer.mark(1);
      if (const nova_status_t st = batched_gemm(blas_, s.dtype, nhwc, filter, V, M, narrow, K, C, P, t.n * t.n);
          st != NOVA_STATUS_SUCCESS)
        return st;
      timer.mark(2);
      const auto output = [&](const auto* product) {
        return launch.output(layout, product, static_cast<T*>(y), bias, relu, N, K, H, W, s.pad, device_.multiprocessors,
                             stream_);
      };
      hipError_t e = hipSuccess;
      if constexpr (std::is_same_v<T, float>) e = output(static_cast<const float*>(M));
      else e = narrow ? output(static_cast<const T*>(M)) : output(static_cast<const float*>(M));
      if (e != hipSuccess) return status_of(e);
      timer.mark(3);
      return timer.finish();
    });
  }

  nova_status_t synchronize() override { return status_of(hipStreamSynchronize(stream_)); }

  nova_status_t set_stream(void* stream) override {
    const auto s = static_cast<hipStream_t>(stream);
#if !(defined(__HIP__) || defined(__HIPCC__))
    if (cublasSetStream(blas_, s) != CUBLAS_STATUS_SUCCESS) return NOVA_STATUS_BACKEND_ERROR;
#elif NOVA_ENABLE_HIPBLAS
    if (hipblasSetStream(blas_, s) != HIPBLAS_STATUS_SUCCESS) return NOVA_STATUS_BACKEND_ERROR;
#endif
    stream_ = s;
    return NOVA_STATUS_SUCCESS;
  }

  nova_status_t zero(void* p, size_t bytes) override { return status_of(hipMemsetAsync(p, 0, bytes, stream_)); }

 private:
  // The cost model's answer for fuses_by_default.
  bool fusion_pays(const ConvShape& s) const {
    double fused = HUGE_VAL, three_pass = HUGE_VAL;
    for (const TransformEntry* t : all_transforms()) {
      if (t->r != s.r || !within_error_budget(*t, s) || check_tiled_sizes(s, *t) != NOVA_STATUS_SUCCESS) continue;
      three_pass = std::min(three_pass, predicted_three_pass_us(s, *t, product_element_bytes(s, *t), cost_device()));
      if (can_fuse(s, *t)) fused = std::min(fused, predicted_fused(s, *t));
    }
    return fused < three_pass;
  }

  // The kernels of a built-in transform, or of a loaded one (compiled for this device at first use).
  const GpuTransformEntry* kernels_of(const TransformEntry& t, bool fused, nova_status_t& status) const {
    if (t.gpu) return t.gpu;
    const LoadedTransform* loaded = loaded_source(t);
    if (!loaded) {
      status = NOVA_STATUS_UNKNOWN_TRANSFORM;
      return nullptr;
    }
    return loaded_kernels(*loaded, arch_, fused, status);
  }

  // Each transform's fused kernels opt in to this device's shared memory once.
  nova_status_t opt_in(const GpuTransformEntry& g) {
    const std::lock_guard lock(opt_in_mutex_);
    if (opted_in_.count(&g)) return NOVA_STATUS_SUCCESS;
    if (const hipError_t e = fused_opt_in(g, device_.shared_limit); e != hipSuccess) return status_of(e);
    opted_in_.insert(&g);
    return NOVA_STATUS_SUCCESS;
  }

  hipStream_t stream_;
  BlasHandle blas_;
  FusedDevice device_;  // shared memory a block, SMs, and which fused kernel runs here (wgmma_device, mfma_device)
  double memory_gbps_;  // peak memory bandwidth (memory_gbps), which the cost model prices bytes by
  std::string arch_;    // device_arch: what loaded transforms are compiled for
  FusedKernelChoice fused_kernel_ = fused_kernel_choice();
  int row_split_ = fused_row_split_choice();  // 0: the cost model's
  RememberedAnswers<ConvShape, bool, 1024> auto_paths_;  // fuses_by_default's
  using ShapeAndTransform = std::pair<ConvShape, const TransformEntry*>;
  RememberedAnswers<ShapeAndTransform, bool, 1024> wgmma_choices_;  // wgmma's, where the cost model decides
  std::mutex opt_in_mutex_;
  std::set<const GpuTransformEntry*> opted_in_;
};

}  // namespace

// Whether the MFMA fused kernel can run on `device`: an AMD CDNA2 or CDNA3 GPU (gfx90a, gfx94x), whose
// code the HIP build holds (--offload-arch).
bool mfma_device(int device) {
#if defined(__HIP__) || defined(__HIPCC__)
  hipDeviceProp_t p{};
  if (hipGetDeviceProperties(&p, device) != hipSuccess) return false;
  const std::string_view arch(p.gcnArchName);
  return arch.starts_with("gfx90a") || arch.starts_with("gfx94");
#else
  (void)device;
  return false;
#endif
}

// Whether the wgmma fused kernel can run on `device`: an sm_90 GPU and a build with sm_90a code
// (NOVA_CUDA_SM90A, set by CMake).
bool wgmma_device(int device) {
#if defined(NOVA_CUDA_SM90A) && !(defined(__HIP__) || defined(__HIPCC__))
  int major = 0, minor = 0;
  if (hipDeviceGetAttribute(&major, hipDeviceAttributeComputeCapabilityMajor, device) != hipSuccess ||
      hipDeviceGetAttribute(&minor, hipDeviceAttributeComputeCapabilityMinor, device) != hipSuccess)
    return false;
  return major == 9 && minor == 0;
#else
  (void)device;
  return false;
#endif
}

nova_status_t make_gpu_backend(void* stream, std::unique_ptr<Backend>& out) {
  int devices = 0;
  if (hipGetDeviceCount(&devices) != hipSuccess || devices == 0) return NOVA_STATUS_NO_GPU;
  const auto s = static_cast<hipStream_t>(stream);
  int device = 0, shared_limit = 0, multiprocessors = 0;
#if defined(__HIP__) || defined(__HIPCC__)
  const auto shared_attribute = hipDeviceAttributeMaxSharedMemoryPerBlock;  // AMD has no opt-in beyond it
#else
  const auto shared_attribute = hipDeviceAttributeSharedMemPerBlockOptin;
#endif
  if (hipGetDevice(&device) != hipSuccess || hipDeviceGetAttribute(&shared_limit, shared_attribute, device) != hipSuccess ||
      hipDeviceGetAttribute(&multiprocessors, hipDeviceAttributeMultiprocessorCount, device) != hipSuccess)
    return NOVA_STATUS_BACKEND_ERROR;
  BlasHandle blas{};
#if !(defined(__HIP__) || defined(__HIPCC__))
  if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) return NOVA_STATUS_BACKEND_ERROR;
  if (cublasSetStream(blas, s) != CUBLAS_STATUS_SUCCESS) {
    cublasDestroy(blas);
    return NOVA_STATUS_BACKEND_ERROR;
  }
#elif NOVA_ENABLE_HIPBLAS
  if (hipblasCreate(&blas) != HIPBLAS_STATUS_SUCCESS) return NOVA_STATUS_BACKEND_ERROR;
  if (hipblasSetStream(blas, s) != HIPBLAS_STATUS_SUCCESS) {
    hipblasDestroy(blas);
    return NOVA_STATUS_BACKEND_ERROR;
  }
#endif
  out = std::make_unique<GpuBackend>(s, blas, FusedDevice{shared_limit, multiprocessors, wgmma_device(device), mfma_device(device)},
                                     memory_gbps(device), device_arch(device));
  return NOVA_STATUS_SUCCESS;
}

}  // namespace nova::runtime
