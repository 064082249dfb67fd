// MFMA gate fixture (tests/codegen/CMakeLists.txt): a fused_mfma kernel that multiplies without the
// matrix cores, beside a kernel outside the gate that uses them, so the gate must fail it for its
// own body.
#include <hip/hip_runtime.h>

typedef _Float16 Half4 __attribute__((ext_vector_type(4)));
typedef float Float4 __attribute__((ext_vector_type(4)));

extern "C" __global__ void nova_gate_fused_mfma_nhwc_f16_v0(const float* a, const float* b, float* d) {
  d[threadIdx.x] = a[threadIdx.x] * b[threadIdx.x];
}

extern "C" __global__ void nova_gate_other_nhwc_f16(const Half4* a, const Half4* b, Float4* d) {
  d[threadIdx.x] = __builtin_amdgcn_mfma_f32_16x16x16f16(a[threadIdx.x], b[threadIdx.x], Float4{}, 0, 0, 0);
}
