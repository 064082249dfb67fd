// MFMA gate fixture (tests/codegen/CMakeLists.txt): a fused_mfma kernel that multiplies on the
// matrix cores but calls a recursive function, whose stack depth the compiler cannot bound, so the
// kernel gets a dynamic stack.
#include <hip/hip_runtime.h>

typedef _Float16 Half4 __attribute__((ext_vector_type(4)));
typedef float Float4 __attribute__((ext_vector_type(4)));

__device__ __attribute__((noinline)) float nested(const float* x, int depth) {
  return depth <= 0 ? x[0] : x[depth] * nested(x, depth - 1) + nested(x + 1, depth - 2);
}

extern "C" __global__ void nova_gate_fused_mfma_nhwc_f16_v0(const Half4* a, const Half4* b, Float4* d, const float* x,
                                                            int depth) {
  const Float4 p = __builtin_amdgcn_mfma_f32_16x16x16f16(a[threadIdx.x], b[threadIdx.x], Float4{}, 0, 0, 0);
  d[threadIdx.x] = p * nested(x, depth);
}
