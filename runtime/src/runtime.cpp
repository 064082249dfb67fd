#include "nova/runtime.h"

#include "backend.hpp"
#include "cpu_backend.hpp"  // the FP64 reference

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

using namespace nova::runtime;

namespace {

// One cached transformed filter. The key includes everything the transformed values depend on.
struct CachedFilter {
  const float* weights;
  uint64_t version;
  const TransformEntry* transform;
  int64_t k, c;
  nova_dtype_t dtype;
  bool fused;  // in the fused kernel's layout
  Buffer data;
};

// The transform "auto" or "tuned" chose for one problem shape: choosing again would give the same
// answer but score every transform (or time the candidates) on every call.
struct ChosenTransform {
  ConvShape shape;  // as the descriptor gave it
  bool tuned;
  const TransformEntry* transform;
  nova_algo_t algorithm;  // the path it runs: THREE_PASS or FUSED
};

}  // namespace

struct nova_handle {
  std::unique_ptr<Backend> backend;
  std::vector<CachedFilter> filters;
  std::vector<ChosenTransform> chosen;
  Buffer workspace{nullptr, std::free};
  size_t workspace_bytes = 0;
};

namespace nova::runtime {

size_t Backend::workspace_bytes(const ConvShape& s, const TransformEntry& t) const {
  if (fuses(s, t))  // fp16 only
    return s.layout == NOVA_LAYOUT_NHWC ? 0 : static_cast<size_t>(fused_nchw_output_offset(s) + s.output_elements()) * 2;
  const Tiling tiling = tile_shape(s, t);
  const auto aligned = [](size_t bytes) { return (bytes + 255) / 256 * 256; };  // keeps M 256-byte aligned
  return aligned(static_cast<size_t>(tiling.transformed_input_elements()) * transformed_element_bytes(s.dtype)) +
         static_cast<size_t>(tiling.product_elements()) * sizeof(float);
}

}  // namespace nova::runtime

namespace {

// "tuned" times the best-ranked transform of each of this many tile sizes on the 3-pass path
// (within a tile size the transforms move the same bytes, and "auto"'s accuracy order is kept),
// and the best-ranked one of the fused path.
constexpr std::size_t kTunedCandidates = 3;

bool same_problem(const ConvShape& a, const ConvShape& b) {
  return a.n == b.n && a.c == b.c && a.h == b.h && a.w == b.w && a.k == b.k && a.r == b.r && a.pad == b.pad &&
         a.layout == b.layout && a.dtype == b.dtype && a.algorithm == b.algorithm;
}

// Best time of a few forward passes of `t` on zero-filled scratch tensors (no pass depends on the
// values), including the wait for the device.
nova_status_t time_forward(Backend& backend, const ConvShape& s, const TransformEntry& t, double& best_ms) {
  const size_t io_bytes = s.dtype == NOVA_DTYPE_FP16 ? 2 : 4;
  Buffer x{nullptr, std::free}, y{nullptr, std::free}, w{nullptr, std::free}, ws{nullptr, std::free},
      filter{nullptr, std::free};
  const size_t x_bytes = static_cast<size_t>(s.input_elements()) * io_bytes,
               w_bytes = static_cast<size_t>(s.filter_elements()) * sizeof(float);
  for (const nova_status_t st :
       {backend.allocate(x_bytes, x), backend.allocate(static_cast<size_t>(s.output_elements()) * io_bytes, y),
        backend.allocate(w_bytes, w), backend.allocate(backend.workspace_bytes(s, t), ws)})
    if (st != NOVA_STATUS_SUCCESS) return st;
  for (const nova_status_t st : {backend.zero(x.get(), x_bytes), backend.zero(w.get(), w_bytes),
                                 backend.transform_filter(s, t, static_cast<const float*>(w.get()), filter)})
    if (st != NOVA_STATUS_SUCCESS) return st;
  best_ms = HUGE_VAL;
  for (int rep = 0; rep < 4; ++rep) {  // the first is a warm-up
    const auto start = std::chrono::steady_clock::now();
    if (const nova_status_t st = backend.forward(s, t, x.get(), filter.get(), nullptr, 0, y.get(), ws.get(), nullptr);
        st != NOVA_STATUS_SUCCESS)
      return st;
    if (const nova_status_t st = backend.synchronize(); st != NOVA_STATUS_SUCCESS) return st;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (rep > 0) best_ms = std::min(best_ms, ms);
  }
  return NOVA_STATUS_SUCCESS;
}

// What "auto" ranks for `s` on its path: with the fused kernel, only the transforms it can run.
CostModel path_cost(const Backend& backend, const ConvShape& s) {
  const bool fused = backend.fused_path(s);
  return [&backend, s, fused](const TransformEntry& t) {
    return fused && !backend.can_fuse(s, t) ? PathCost{HUGE_VAL, 0} : backend.forward_cost(s, t);
  };
}

// "tuned": the fastest of the candidates for this shape. With NOVA_ALGO_AUTO the candidates of
// both paths compete, and `s.algorithm` becomes the winner's path. `out` is "auto"'s choice on
// entry and stays it when there is nothing to time.
nova_status_t tuned_transform(nova_handle_t h, ConvShape& s, const TransformEntry*& out) {
  struct Candidate {
    ConvShape shape;  // with the path it runs
    const TransformEntry* transform;
  };
  std::vector<Candidate> candidates;
  const auto add_path = [&](nova_algo_t algorithm, std::size_t most) {
    ConvShape path = s;
    path.algorithm = algorithm;
    const CostModel cost = path_cost(*h->backend, path);
    std::size_t taken = 0;
    for (const TransformEntry* t : ranked_transforms(path, cost)) {
      const bool tile_taken = std::any_of(candidates.begin(), candidates.end(), [&](const Candidate& c) {
        return c.shape.algorithm == algorithm && c.transform->m == t->m;
      });
      if (cost(*t).volume != HUGE_VAL && !tile_taken && taken < most && check_tiled_sizes(path, *t) == NOVA_STATUS_SUCCESS)
        candidates.push_back({path, t}), ++taken;
    }
  };
  if (s.algorithm == NOVA_ALGO_AUTO) {
    add_path(NOVA_ALGO_THREE_PASS, kTunedCandidates);
    add_path(NOVA_ALGO_FUSED, 1);
  } else {
    add_path(s.algorithm, kTunedCandidates);
  }
  double best_ms = HUGE_VAL;
  const Candidate* best = nullptr;
  for (const Candidate& c : candidates) {
    double ms = 0;
    if (candidates.size() > 1)
      if (const nova_status_t st = time_forward(*h->backend, c.shape, *c.transform, ms); st != NOVA_STATUS_SUCCESS) return st;
    if (ms < best_ms) best_ms = ms, best = &c;
  }
  if (best) out = best->transform, s.algorithm = best->shape.algorithm;
  return NOVA_STATUS_SUCCESS;
}

// Validation shared by every entry point that takes a descriptor; resolves the transform and the
// path (shape.algorithm becomes THREE_PASS or FUSED).
nova_status_t prepare(nova_handle_t handle, const nova_conv_desc_t* desc, ConvShape& shape, const TransformEntry*& t) {
  if (!handle) return NOVA_STATUS_INVALID_ARGUMENT;
  if (const nova_status_t st = validate_descriptor(desc, shape); st != NOVA_STATUS_SUCCESS) return st;
  const bool tuned = desc->transform && std::strcmp(desc->transform, "tuned") == 0;
  const bool chosen = tuned || !desc->transform || std::strcmp(desc->transform, "auto") == 0;
  if (chosen)
    for (const ChosenTransform& c : handle->chosen)
      if (c.tuned == tuned && same_problem(c.shape, shape)) {
        t = c.transform;
        shape.algorithm = c.algorithm;
        return NOVA_STATUS_SUCCESS;
      }
  const ConvShape asked = shape;
  const Backend& backend = *handle->backend;
  if (const nova_status_t st = resolve_transform(desc, shape, t, path_cost(backend, shape)); st != NOVA_STATUS_SUCCESS)
    return st;
  if (tuned)
    if (const nova_status_t st = tuned_transform(handle, shape, t); st != NOVA_STATUS_SUCCESS) return st;
  if (shape.algorithm == NOVA_ALGO_FUSED && !backend.can_fuse(shape, *t)) return NOVA_STATUS_NOT_SUPPORTED;
  // The path, decided once: every later question (workspace, filter layout, forward) reads it.
  shape.algorithm = backend.fuses(shape, *t) ? NOVA_ALGO_FUSED : NOVA_ALGO_THREE_PASS;
  if (chosen) handle->chosen.push_back({asked, tuned, t, shape.algorithm});
  return NOVA_STATUS_SUCCESS;
}

nova_status_t cached_filter(nova_handle_t h, const ConvShape& s, const TransformEntry* t, const float* weights,
                            uint64_t version, const void*& out) {
  const bool fused = h->backend->fuses(s, *t);
  for (const CachedFilter& f : h->filters)
    if (f.weights == weights && f.version == version && f.transform == t && f.k == s.k && f.c == s.c &&
        f.dtype == s.dtype && f.fused == fused) {
      out = f.data.get();
      return NOVA_STATUS_SUCCESS;
    }
  // A new version of the same weights replaces the stale entry instead of piling up.
  std::erase_if(h->filters, [&](const CachedFilter& f) { return f.weights == weights && f.transform == t; });
  Buffer data{nullptr, std::free};
  if (const nova_status_t st = h->backend->transform_filter(s, *t, weights, data); st != NOVA_STATUS_SUCCESS) return st;
  out = data.get();
  h->filters.push_back({weights, version, t, s.k, s.c, s.dtype, fused, std::move(data)});
  return NOVA_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

const char* nova_status_string(nova_status_t status) {
  switch (status) {
    case NOVA_STATUS_SUCCESS: return "success";
    case NOVA_STATUS_INVALID_ARGUMENT: return "invalid argument: null pointer, non-positive size, bad enum, padding outside 0..2 or image smaller than the filter";
    case NOVA_STATUS_NOT_SUPPORTED: return "not supported: Winograd here serves stride 1, dilation 1, groups 1 and kernel sizes with a generated transform; the fused algorithm only fp16 on the GPU, tiles up to 6x6, C and K multiples of 16";
    case NOVA_STATUS_UNKNOWN_TRANSFORM: return "unknown transform: no generated transform has that name, or none fits \"auto\" for this shape and dtype";
    case NOVA_STATUS_SIZE_OVERFLOW: return "size overflow: a tensor or workspace has more than 2^31-1 elements";
    case NOVA_STATUS_WORKSPACE_TOO_SMALL: return "workspace too small: query nova_conv_workspace_size()";
    case NOVA_STATUS_ALLOCATION_FAILED: return "allocation failed";
    case NOVA_STATUS_NO_GPU: return "no GPU: the library was built without a GPU backend, or no device is present";
    case NOVA_STATUS_BACKEND_ERROR: return "backend error: the GPU runtime or BLAS library reported a failure";
    case NOVA_STATUS_MISALIGNED: return "misaligned: the GPU's fused kernel needs x, y and the workspace at 16-byte boundaries (cudaMalloc/hipMalloc memory is); or ask for NOVA_ALGO_THREE_PASS";
  }
  return "unknown status";
}

int nova_transform_count(void) { return static_cast<int>(transform_registry().size()); }

nova_status_t nova_transform_info(int index, nova_transform_info_t* info) {
  if (!info || index < 0 || index >= nova_transform_count()) return NOVA_STATUS_INVALID_ARGUMENT;
  const TransformEntry& t = transform_registry()[static_cast<size_t>(index)];
  *info = nova_transform_info_t{t.name, t.m, t.r, t.points, t.amp2d};
  return NOVA_STATUS_SUCCESS;
}

void nova_conv_desc_init(nova_conv_desc_t* desc) {
  if (!desc) return;
  *desc = nova_conv_desc_t{};
  desc->kernel_size = 3;
  desc->pad = 1;
  desc->stride = desc->dilation = desc->groups = 1;
  desc->layout = NOVA_LAYOUT_NCHW;
  desc->dtype = NOVA_DTYPE_FP32;
  desc->transform = "auto";
}

nova_status_t nova_create(nova_handle_t* handle, nova_backend_t backend, void* stream) {
  if (!handle) return NOVA_STATUS_INVALID_ARGUMENT;
  *handle = nullptr;
  std::unique_ptr<Backend> impl;
  if (backend == NOVA_BACKEND_CPU) impl = make_cpu_backend();
  else if (backend == NOVA_BACKEND_GPU) {
    if (const nova_status_t st = make_gpu_backend(stream, impl); st != NOVA_STATUS_SUCCESS) return st;
  } else return NOVA_STATUS_INVALID_ARGUMENT;
  auto* h = new (std::nothrow) nova_handle;
  if (!h) return NOVA_STATUS_ALLOCATION_FAILED;
  h->backend = std::move(impl);
  *handle = h;
  return NOVA_STATUS_SUCCESS;
}

nova_status_t nova_destroy(nova_handle_t handle) {
  delete handle;  // filters and workspace are released by their owners' deleters
  return NOVA_STATUS_SUCCESS;
}

nova_status_t nova_conv_transform_name(nova_handle_t handle, const nova_conv_desc_t* desc, const char** name) {
  if (!name) return NOVA_STATUS_INVALID_ARGUMENT;
  ConvShape s;
  const TransformEntry* t = nullptr;
  if (const nova_status_t st = prepare(handle, desc, s, t); st != NOVA_STATUS_SUCCESS) return st;
  *name = t->name;
  return NOVA_STATUS_SUCCESS;
}

nova_status_t nova_conv_workspace_size(nova_handle_t handle, const nova_conv_desc_t* desc, size_t* bytes) {
  if (!bytes) return NOVA_STATUS_INVALID_ARGUMENT;
  ConvShape s;
  const TransformEntry* t = nullptr;
  if (const nova_status_t st = prepare(handle, desc, s, t); st != NOVA_STATUS_SUCCESS) return st;
  *bytes = handle->backend->workspace_bytes(s, *t);
  return NOVA_STATUS_SUCCESS;
}

nova_status_t nova_filter_transform(nova_handle_t handle, const nova_conv_desc_t* desc, const float* weights,
                                    uint64_t version) {
  if (!weights) return NOVA_STATUS_INVALID_ARGUMENT;
  ConvShape s;
  const TransformEntry* t = nullptr;
  if (const nova_status_t st = prepare(handle, desc, s, t); st != NOVA_STATUS_SUCCESS) return st;
  const void* unused = nullptr;
  return cached_filter(handle, s, t, weights, version, unused);
}

nova_status_t nova_filter_invalidate(nova_handle_t handle, const float* weights) {
  if (!handle || !weights) return NOVA_STATUS_INVALID_ARGUMENT;
  std::erase_if(handle->filters, [&](const CachedFilter& f) { return f.weights == weights; });
  return NOVA_STATUS_SUCCESS;
}

}  // extern "C"

namespace {

nova_status_t run_forward(nova_handle_t handle, const nova_conv_desc_t* desc, const void* x, const float* weights,
                          uint64_t weights_version, const float* bias, int relu, void* y, void* workspace,
                          size_t workspace_bytes, nova_stage_profile_t* profile) {
  if (!x || !weights || !y) return NOVA_STATUS_INVALID_ARGUMENT;
  ConvShape s;
  const TransformEntry* t = nullptr;
  if (const nova_status_t st = prepare(handle, desc, s, t); st != NOVA_STATUS_SUCCESS) return st;
  const size_t needed = handle->backend->workspace_bytes(s, *t);
  if (workspace && workspace_bytes < needed) return NOVA_STATUS_WORKSPACE_TOO_SMALL;
  if (!workspace) {
    if (handle->workspace_bytes < needed) {
      handle->workspace.reset();
      handle->workspace_bytes = 0;
      if (const nova_status_t st = handle->backend->allocate(needed, handle->workspace); st != NOVA_STATUS_SUCCESS) return st;
      handle->workspace_bytes = needed;
    }
    workspace = handle->workspace.get();
  }
  const void* filter = nullptr;
  if (profile) {
    *profile = nova_stage_profile_t{};
    std::erase_if(handle->filters, [&](const CachedFilter& f) { return f.weights == weights; });
    if (const nova_status_t st = handle->backend->synchronize(); st != NOVA_STATUS_SUCCESS) return st;
  }
  const auto start = std::chrono::steady_clock::now();
  if (const nova_status_t st = cached_filter(handle, s, t, weights, weights_version, filter); st != NOVA_STATUS_SUCCESS)
    return st;
  if (profile) {
    if (const nova_status_t st = handle->backend->synchronize(); st != NOVA_STATUS_SUCCESS) return st;
    profile->filter_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    fill_stage_traffic(s, *t, handle->backend->transformed_element_bytes(s.dtype), handle->backend->fuses(s, *t),
                       *profile);
  }
  return handle->backend->forward(s, *t, x, filter, bias, relu, y, workspace, profile);
}

}  // namespace

extern "C" {

nova_status_t nova_conv_forward(nova_handle_t handle, const nova_conv_desc_t* desc, const void* x, const float* weights,
                                uint64_t weights_version, const float* bias, int relu, void* y, void* workspace,
                                size_t workspace_bytes) {
  return run_forward(handle, desc, x, weights, weights_version, bias, relu, y, workspace, workspace_bytes, nullptr);
}

nova_status_t nova_conv_profile(nova_handle_t handle, const nova_conv_desc_t* desc, const void* x, const float* weights,
                                uint64_t weights_version, const float* bias, int relu, void* y, void* workspace,
                                size_t workspace_bytes, nova_stage_profile_t* profile) {
  if (!profile) return NOVA_STATUS_INVALID_ARGUMENT;
  return run_forward(handle, desc, x, weights, weights_version, bias, relu, y, workspace, workspace_bytes, profile);
}

nova_status_t nova_conv_reference(const nova_conv_desc_t* desc, const void* x, const float* weights, const float* bias,
                                  int relu, void* y) {
  if (!x || !weights || !y) return NOVA_STATUS_INVALID_ARGUMENT;
  ConvShape s;
  if (const nova_status_t st = validate_descriptor(desc, s); st != NOVA_STATUS_SUCCESS) return st;
  cpu::direct_reference(s, x, weights, bias, relu, y);
  return NOVA_STATUS_SUCCESS;
}

}  // extern "C"
