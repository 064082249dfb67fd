// MFMA gate fixture (tests/codegen/CMakeLists.txt): a fused_mfma kernel that multiplies on the
// matrix cores but holds more values than a 1024-thread block leaves registers for (128 a lane),
// so they spill.
#include <hip/hip_runtime.h>

typedef _Float16 Half4 __attribute__((ext_vector_type(4)));
typedef float Float4 __attribute__((ext_vector_type(4)));

extern "C" __global__ void __launch_bounds__(1024) nova_gate_fused_mfma_nhwc_f16_v0(const Half4* a, const Half4* b, Float4* d) {
  Float4 acc[48];
  for (int i = 0; i < 48; ++i) acc[i] = Float4{};
  for (int k = 0; k < 8; ++k)
    for (int i = 0; i < 48; ++i) acc[i] = __builtin_amdgcn_mfma_f32_16x16x16f16(a[k * 48 + i], b[k], acc[i], 0, 0, 0);
  for (int i = 0; i < 48; ++i) d[i * 1024 + threadIdx.x] = acc[i];
}
