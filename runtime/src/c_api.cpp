// The C API of nova/runtime.h: argument checks, then the handle's backend, caches and workspace.
#include "nova/runtime.h"

#include "cpu_backend.hpp"  // the FP64 reference
#include "handle.hpp"

#include <chrono>
#include <cstring>
#include <new>

using namespace nova::runtime;

namespace {

nova_status_t prepare(nova_handle_t h, const nova_conv_desc_t* desc, ConvShape& s, const TransformEntry*& t) {
  if (!h) return NOVA_STATUS_INVALID_ARGUMENT;
  return prepare(*h->backend, h->choices, desc, s, t);
}

// Prepares the descriptor, then returns then(shape, transform)'s status (or the preparation's).
template <class Then>
nova_status_t with_prepared(nova_handle_t h, const nova_conv_desc_t* desc, Then&& then) {
  ConvShape s;
  const TransformEntry* t = nullptr;
  if (const nova_status_t st = prepare(h, desc, s, t); st != NOVA_STATUS_SUCCESS) return st;
  return then(s, *t);
}

nova_filter_plan_t filter_plan(const Backend& backend, const ConvShape& s, const TransformEntry& t) {
  // The registry position names the transform; the path and the element size fix the byte order,
  // the dtype what the elements hold (fp16 and bf16 have the same size; the CPU rounds fp32 to either).
  const auto index = static_cast<uint64_t>(transform_position(t));
  const uint64_t layout = (index + 1) << 32 | static_cast<uint64_t>(s.dtype) << 16 | static_cast<uint64_t>(backend.filter_layout(s, t)) << 8 |
                          static_cast<uint64_t>(backend.transformed_element_bytes(s.dtype));
  return {backend.filter_bytes(s, t), backend.filter_scratch_bytes(s, t), layout};
}

bool same_plan(const nova_filter_plan_t& a, const nova_filter_plan_t& b) {
  return a.bytes == b.bytes && a.scratch_bytes == b.scratch_bytes && a.layout == b.layout;
}

// The transformed filter from the handle's cache, or transformed now (outside the cache's lock, so
// that other threads' hits need not wait) and cached. Freeing the GPU scratch waits for the transform.
nova_status_t cached_filter(nova_handle_t h, const ConvShape& s, const TransformEntry& t, const float* weights,
                            uint64_t version, FilterCache::Filter& out) {
  Backend& backend = *h->backend;
  const FilterCache::Key key{weights, version, &t, s.k, s.c, s.dtype, backend.filter_layout(s, t)};
  if ((out = h->filters.find(key))) return NOVA_STATUS_SUCCESS;
  const nova_filter_plan_t plan = filter_plan(backend, s, t);
  Buffer filter{nullptr, std::free}, scratch{nullptr, std::free};
  if (const nova_status_t st = backend.allocate(plan.bytes, filter); st != NOVA_STATUS_SUCCESS) return st;
  if (plan.scratch_bytes)
    if (const nova_status_t st = backend.allocate(plan.scratch_bytes, scratch); st != NOVA_STATUS_SUCCESS) return st;
  if (const nova_status_t st = backend.transform_filter(s, t, weights, filter.get(), scratch.get());
      st != NOVA_STATUS_SUCCESS)
    return st;
  out = std::make_shared<const Buffer>(std::move(filter));
  h->filters.insert(key, out, plan.bytes);
  return NOVA_STATUS_SUCCESS;
}

// Where a forward's transformed filter comes from: the handle's cache (weights, version) or the
// caller's memory (plan, filter).
struct FilterSource {
  const float* weights = nullptr;
  uint64_t version = 0;
  const nova_filter_plan_t* plan = nullptr;
  const void* filter = nullptr;
};

nova_status_t run_forward(nova_handle_t handle, const nova_conv_desc_t* desc, const void* x, const FilterSource& source,
                          const float* bias, int relu, void* y, void* workspace, size_t workspace_bytes,
                          nova_stage_profile_t* profile) {
  if (!x || !y || !(source.weights || (source.plan && source.filter))) return NOVA_STATUS_INVALID_ARGUMENT;
  ConvShape s;
  const TransformEntry* t = nullptr;
  if (const nova_status_t st = prepare(handle, desc, s, t); st != NOVA_STATUS_SUCCESS) return st;
  Backend& backend = *handle->backend;
  if (source.filter && !same_plan(*source.plan, filter_plan(backend, s, *t))) return NOVA_STATUS_FILTER_MISMATCH;
  const size_t needed = backend.workspace_bytes(s, *t);
  if (workspace && workspace_bytes < needed) return NOVA_STATUS_WORKSPACE_TOO_SMALL;
  std::unique_lock<std::mutex> own_workspace;  // held until the backend is done with it
  if (!workspace) {
    own_workspace = std::unique_lock(handle->workspace_mutex);
    if (handle->workspace_bytes < needed) {
      handle->workspace.reset();
      handle->workspace_bytes = 0;
      if (const nova_status_t st = backend.allocate(needed, handle->workspace); st != NOVA_STATUS_SUCCESS) return st;
      handle->workspace_bytes = needed;
    }
    workspace = handle->workspace.get();
  }
  if (profile) {
    *profile = nova_stage_profile_t{};
    handle->filters.invalidate(source.weights);
    if (const nova_status_t st = backend.synchronize(); st != NOVA_STATUS_SUCCESS) return st;
  }
  const auto start = std::chrono::steady_clock::now();
  FilterCache::Filter cached;
  const void* filter = source.filter;
  if (!filter) {
    if (const nova_status_t st = cached_filter(handle, s, *t, source.weights, source.version, cached);
        st != NOVA_STATUS_SUCCESS)
      return st;
    filter = cached->get();
  }
  if (profile) {
    if (const nova_status_t st = backend.synchronize(); st != NOVA_STATUS_SUCCESS) return st;
    profile->filter_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    fill_stage_traffic(s, *t, backend.transformed_element_bytes(s.dtype), backend.product_element_bytes(s, *t),
                       backend.fuses(s, *t), *profile);
  }
  return backend.forward(s, *t, x, filter, bias, relu, y, workspace, profile);
}

}  // namespace

extern "C" {

const char* nova_status_string(nova_status_t status) {
  switch (status) {
    case NOVA_STATUS_SUCCESS: return "success";
    case NOVA_STATUS_INVALID_ARGUMENT: return "invalid argument: null pointer, non-positive size, bad enum, padding outside 0..2 or image smaller than the filter";
    case NOVA_STATUS_NOT_SUPPORTED: return "not supported: Winograd here serves stride 1, dilation 1, groups 1 and kernel sizes with a generated transform; the fused algorithm only fp16 and bf16 on the GPU and tiles up to 6x6";
    case NOVA_STATUS_UNKNOWN_TRANSFORM: return "unknown transform: no generated transform has that name, or none fits \"auto\" for this shape, dtype and error budget";
    case NOVA_STATUS_SIZE_OVERFLOW: return "size overflow: a tensor or workspace has more than 2^31-1 elements";
    case NOVA_STATUS_WORKSPACE_TOO_SMALL: return "workspace too small: query nova_conv_workspace_size()";
    case NOVA_STATUS_ALLOCATION_FAILED: return "allocation failed";
    case NOVA_STATUS_NO_GPU: return "no GPU: the library was built without a GPU backend, or no device is present";
    case NOVA_STATUS_BACKEND_ERROR: return "backend error: the GPU runtime or BLAS library reported a failure";
    case NOVA_STATUS_MISALIGNED: return "misaligned: the GPU's fused kernel needs NHWC x and y at 16-byte boundaries (cudaMalloc/hipMalloc memory is); or ask for NOVA_ALGO_THREE_PASS";
    case NOVA_STATUS_FILTER_MISMATCH: return "filter mismatch: the filter was transformed for another plan (transform, path, element type or size) than this descriptor's; query nova_filter_plan() for it and transform again";
    case NOVA_STATUS_FILE_ERROR: return "file error: the transform file is missing or cannot be read";
    case NOVA_STATUS_INVALID_CONFIG: return "invalid config: the transform JSON is malformed or fails exact verification (nova_jit_last_error() says where)";
    case NOVA_STATUS_TRANSFORM_EXISTS: return "transform exists: another transform (built in, or loaded with other content) already has that name";
    case NOVA_STATUS_COMPILE_FAILED: return "compile failed: the loaded transform's GPU kernels could not be compiled or loaded for this device (nova_jit_last_error() has the compiler's log)";
    case NOVA_STATUS_INACCURATE: return "inaccurate: the named transform's predicted error 0.7*u*amp2D exceeds the error budget (the descriptor's max_error; by default fp16 1e-2, bf16 3e-2, fp32 1e-5); set allow_inaccurate = 1 in the descriptor to run it anyway, or use \"auto\"";
    case NOVA_STATUS_RANGE_END: break;
  }
  return "unknown status";
}

int nova_transform_count(void) { return transform_count(); }

nova_status_t nova_transform_info(int index, nova_transform_info_t* info) {
  const TransformEntry* t = transform_at(index);
  if (!info || !t) return NOVA_STATUS_INVALID_ARGUMENT;
  *info = transform_info(*t);
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

nova_status_t nova_set_stream(nova_handle_t handle, void* stream) {
  if (!handle) return NOVA_STATUS_INVALID_ARGUMENT;
  return handle->backend->set_stream(stream);
}

nova_status_t nova_conv_transform_name(nova_handle_t handle, const nova_conv_desc_t* desc, const char** name) {
  if (!name) return NOVA_STATUS_INVALID_ARGUMENT;
  return with_prepared(handle, desc, [&](const ConvShape&, const TransformEntry& t) {
    *name = t.name;
    return NOVA_STATUS_SUCCESS;
  });
}

nova_status_t nova_conv_workspace_size(nova_handle_t handle, const nova_conv_desc_t* desc, size_t* bytes) {
  if (!bytes) return NOVA_STATUS_INVALID_ARGUMENT;
  return with_prepared(handle, desc, [&](const ConvShape& s, const TransformEntry& t) {
    *bytes = handle->backend->workspace_bytes(s, t);
    return NOVA_STATUS_SUCCESS;
  });
}

nova_status_t nova_conv_predicted_error(nova_handle_t handle, const nova_conv_desc_t* desc, double* error) {
  if (!error) return NOVA_STATUS_INVALID_ARGUMENT;
  return with_prepared(handle, desc, [&](const ConvShape& s, const TransformEntry& t) {
    *error = handle->backend->predicted_forward_error(s, t);
    return NOVA_STATUS_SUCCESS;
  });
}

nova_status_t nova_filter_transform(nova_handle_t handle, const nova_conv_desc_t* desc, const float* weights,
                                    uint64_t version) {
  if (!weights) return NOVA_STATUS_INVALID_ARGUMENT;
  return with_prepared(handle, desc, [&](const ConvShape& s, const TransformEntry& t) {
    FilterCache::Filter unused;
    return cached_filter(handle, s, t, weights, version, unused);
  });
}

nova_status_t nova_filter_invalidate(nova_handle_t handle, const float* weights) {
  if (!handle || !weights) return NOVA_STATUS_INVALID_ARGUMENT;
  handle->filters.invalidate(weights);
  return NOVA_STATUS_SUCCESS;
}

nova_status_t nova_filter_cache_limit(nova_handle_t handle, size_t bytes) {
  if (!handle) return NOVA_STATUS_INVALID_ARGUMENT;
  handle->filters.set_limit(bytes);
  return NOVA_STATUS_SUCCESS;
}

nova_status_t nova_filter_cache_bytes(nova_handle_t handle, size_t* bytes) {
  if (!handle || !bytes) return NOVA_STATUS_INVALID_ARGUMENT;
  *bytes = handle->filters.bytes();
  return NOVA_STATUS_SUCCESS;
}

nova_status_t nova_filter_plan(nova_handle_t handle, const nova_conv_desc_t* desc, nova_filter_plan_t* plan) {
  if (!plan) return NOVA_STATUS_INVALID_ARGUMENT;
  return with_prepared(handle, desc, [&](const ConvShape& s, const TransformEntry& t) {
    *plan = filter_plan(*handle->backend, s, t);
    return NOVA_STATUS_SUCCESS;
  });
}

nova_status_t nova_filter_transform_into(nova_handle_t handle, const nova_conv_desc_t* desc, const float* weights,
                                         const nova_filter_plan_t* plan, void* filter, void* scratch) {
  if (!weights || !plan || !filter || (plan->scratch_bytes && !scratch)) return NOVA_STATUS_INVALID_ARGUMENT;
  return with_prepared(handle, desc, [&](const ConvShape& s, const TransformEntry& t) {
    if (!same_plan(*plan, filter_plan(*handle->backend, s, t))) return NOVA_STATUS_FILTER_MISMATCH;
    return handle->backend->transform_filter(s, t, weights, filter, scratch);
  });
}

nova_status_t nova_conv_forward_with_filter(nova_handle_t handle, const nova_conv_desc_t* desc, const void* x,
                                            const nova_filter_plan_t* plan, const void* filter, const float* bias,
                                            int relu, void* y, void* workspace, size_t workspace_bytes) {
  if (!plan || !filter) return NOVA_STATUS_INVALID_ARGUMENT;
  return run_forward(handle, desc, x, FilterSource{nullptr, 0, plan, filter}, bias, relu, y, workspace, workspace_bytes,
                     nullptr);
}

nova_status_t nova_conv_forward(nova_handle_t handle, const nova_conv_desc_t* desc, const void* x, const float* weights,
                                uint64_t weights_version, const float* bias, int relu, void* y, void* workspace,
                                size_t workspace_bytes) {
  return run_forward(handle, desc, x, FilterSource{weights, weights_version}, bias, relu, y, workspace, workspace_bytes,
                     nullptr);
}

nova_status_t nova_conv_profile(nova_handle_t handle, const nova_conv_desc_t* desc, const void* x, const float* weights,
                                uint64_t weights_version, const float* bias, int relu, void* y, void* workspace,
                                size_t workspace_bytes, nova_stage_profile_t* profile) {
  if (!profile || !weights) return NOVA_STATUS_INVALID_ARGUMENT;
  return run_forward(handle, desc, x, FilterSource{weights, weights_version}, bias, relu, y, workspace, workspace_bytes,
                     profile);
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
