// MFMA gate fixture (tests/codegen/CMakeLists.txt): a fused_mfma kernel that multiplies on the
// matrix cores without scratch, so tools/check_kernel_compile.sh passes it on gfx90a and gfx942.
#include <hip/hip_runtime.h>

typedef _Float16 Half4 __attribute__((ext_vector_type(4)));
typedef float Float4 __attribute__((ext_vector_type(4)));

extern "C" __global__ void nova_gate_fused_mfma_nhwc_f16_v0(const Half4* a, const Half4* b, Float4* d) {
  const unsigned lane = threadIdx.x;
  d[lane] = __builtin_amdgcn_mfma_f32_16x16x16f16(a[lane], b[lane], Float4{}, 0, 0, 0);
}
