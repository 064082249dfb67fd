// Spill gate fixture (tests/codegen/CMakeLists.txt): 64 values live at once in a kernel whose launch
// bound (1024 threads, two blocks an SM) leaves 32 registers a thread, so ptxas spills.
extern "C" __global__ void __launch_bounds__(1024, 2) nova_gate_kernel(const float* x, float* y) {
  float v[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) v[i] = x[i * blockDim.x + threadIdx.x];
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int i = 0; i < 64; ++i) v[i] = v[i] * v[(i + 17) % 64] + v[(i + 31) % 64];
#pragma unroll
  for (int i = 0; i < 64; ++i) y[i * blockDim.x + threadIdx.x] = v[i];
}
