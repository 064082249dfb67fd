// What the C API needs from a backend: the CPU one is in cpu_backend.cpp, the GPU one in
// gpu_backend.hip (built only with NOVA_ENABLE_CUDA or HIP); the shared part in backend.cpp.
// A backend is used by every thread that shares its handle: no member may change after creation,
// except the GPU's stream through set_stream(), which the C API lets no call overlap, and caches
// behind their own lock (the GPU's record of which kernels opted in to its shared memory).
#pragma once

#include "conv_shape.hpp"

#include <memory>

namespace nova::runtime {

// A block of backend memory (host or device) released by its own deleter.
using Buffer = std::unique_ptr<void, void (*)(void*)>;

class Backend {
 public:
  virtual ~Backend() = default;
  // Bytes per element of the transformed input V and filter U (2 for fp16 and bf16 storage, 4 for fp32).
  virtual int transformed_element_bytes(nova_dtype_t dtype) const = 0;
  // Bytes per element of the Winograd-domain product M of a 3-pass forward: 4 (fp32), or 2 where the
  // backend stores it in the 16-bit storage type (the GPU, where narrow_product_fits).
  virtual int product_element_bytes(const ConvShape&, const TransformEntry&) const { return 4; }
  // The precision model's prediction for this forward (predicted_error, with M as it is stored).
  double predicted_forward_error(const ConvShape& s, const TransformEntry& t) const {
    return predicted_error(t, s, !fuses(s, t) && product_element_bytes(s, t) == 2);
  }
  // Whether the backend has a fused kernel for this shape and transform (NOVA_ALGO_FUSED).
  virtual bool can_fuse(const ConvShape&, const TransformEntry&) const { return false; }
  // Whether NOVA_ALGO_AUTO runs this shape fused: the shapes the fused kernel was measured faster on.
  virtual bool fuses_by_default(const ConvShape&) const { return false; }
  // Whether the shape takes the fused path: asked for (NOVA_ALGO_FUSED), or AUTO's choice.
  bool fused_path(const ConvShape& s) const {
    return s.algorithm == NOVA_ALGO_FUSED || (s.algorithm == NOVA_ALGO_AUTO && fuses_by_default(s));
  }
  // True when this forward runs the fused kernel: the filter in its layout, no V or M.
  bool fuses(const ConvShape& s, const TransformEntry& t) const { return fused_path(s) && can_fuse(s, t); }
  // The transformed filter's element order for this forward: 0 the plain [n*n][K][C], 1 and up a
  // fused kernel's (the GPU has two fused kernels with different orders).
  virtual int filter_layout(const ConvShape& s, const TransformEntry& t) const { return fuses(s, t) ? 1 : 0; }
  // What its forward pass costs with this transform on the path fuses() picks.
  virtual PathCost forward_cost(const ConvShape& shape, const TransformEntry& t) const {
    return {forward_traffic_bytes(shape, t, transformed_element_bytes(shape.dtype), product_element_bytes(shape, t)), 0};
  }
  // V then M (product_element_bytes); fused: none.
  size_t workspace_bytes(const ConvShape& shape, const TransformEntry& t) const;
  virtual nova_status_t allocate(size_t bytes, Buffer& out) = 0;
  virtual nova_status_t zero(void* p, size_t bytes) = 0;  // memory from allocate()
  // Bytes of the transformed filter, and of the scratch its transform needs.
  virtual size_t filter_bytes(const ConvShape& s, const TransformEntry& t) const {
    return static_cast<size_t>(tile_shape(s, t).transformed_filter_elements()) *
           static_cast<size_t>(transformed_element_bytes(s.dtype));
  }
  virtual size_t filter_scratch_bytes(const ConvShape&, const TransformEntry&) const { return 0; }
  // Writes the transformed filter into `filter` (filter_bytes()), using `scratch`; on the GPU both
  // are device memory and the work is queued on the stream.
  virtual nova_status_t transform_filter(const ConvShape& shape, const TransformEntry& t, const float* weights,
                                         void* filter, void* scratch) = 0;
  // profile: null for a plain forward; otherwise stage times are filled in (stages synchronised).
  virtual nova_status_t forward(const ConvShape& shape, const TransformEntry& t, const void* x, const void* filter,
                                const float* bias, int relu, void* y, void* workspace,
                                nova_stage_profile_t* profile) = 0;
  virtual nova_status_t synchronize() = 0;
  virtual nova_status_t set_stream(void*) { return NOVA_STATUS_SUCCESS; }  // the CPU has none
};

std::unique_ptr<Backend> make_cpu_backend();
// Returns NOVA_STATUS_NO_GPU when the library was built without a GPU backend or no device exists.
nova_status_t make_gpu_backend(void* stream, std::unique_ptr<Backend>& out);

}  // namespace nova::runtime
