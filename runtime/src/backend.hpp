// What the C API needs from a backend; the CPU one lives in runtime.cpp, the GPU one in
// gpu_backend.hip (built only with NOVA_ENABLE_CUDA or HIP).
#pragma once

#include "conv_shape.hpp"

#include <memory>

namespace nova::runtime {

// A block of backend memory (host or device) released by its own deleter.
using Buffer = std::unique_ptr<void, void (*)(void*)>;

class Backend {
 public:
  virtual ~Backend() = default;
  // Bytes per element of the transformed input V and filter U (fp16 storage, or fp32).
  virtual int transformed_element_bytes(nova_dtype_t dtype) const = 0;
  size_t workspace_bytes(const ConvShape& shape, const TransformEntry& t) const;  // V then M (fp32)
  virtual nova_status_t allocate(size_t bytes, Buffer& out) = 0;
  // Writes the transformed filter into a buffer it allocates.
  virtual nova_status_t transform_filter(const ConvShape& shape, const TransformEntry& t, const float* weights,
                                         Buffer& filter) = 0;
  // profile: null for a plain forward; otherwise stage times are filled in (stages synchronised).
  virtual nova_status_t forward(const ConvShape& shape, const TransformEntry& t, const void* x, const void* filter,
                                const float* bias, int relu, void* y, void* workspace,
                                nova_stage_profile_t* profile) = 0;
  virtual nova_status_t synchronize() = 0;
};

std::unique_ptr<Backend> make_cpu_backend();
// Returns NOVA_STATUS_NO_GPU when the library was built without a GPU backend or no device exists.
nova_status_t make_gpu_backend(void* stream, std::unique_ptr<Backend>& out);

}  // namespace nova::runtime
