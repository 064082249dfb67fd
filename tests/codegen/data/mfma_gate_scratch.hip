// MFMA gate fixture (tests/codegen/CMakeLists.txt): a fused_mfma kernel that multiplies on the
// matrix cores but indexes a private array at run time, which puts the array in scratch.
#include <hip/hip_runtime.h>

typedef _Float16 Half4 __attribute__((ext_vector_type(4)));
typedef float Float4 __attribute__((ext_vector_type(4)));

extern "C" __global__ void nova_gate_fused_mfma_nhwc_f16_v0(const Half4* a, const Half4* b, Float4* d, int pick) {
  Float4 products[64];
  for (int i = 0; i < 64; ++i) products[i] = __builtin_amdgcn_mfma_f32_16x16x16f16(a[i], b[threadIdx.x], Float4{}, 0, 0, 0);
  d[threadIdx.x] = products[pick % 64];
}
