// Spill gate fixture (tests/codegen/CMakeLists.txt): a private array written and read at indices known
// only at run time, which ptxas keeps in a stack frame (local memory) without spilling.
extern "C" __global__ void nova_gate_kernel(const float* x, float* y, int k) {
  float v[32] = {};
  for (int i = 0; i < 32; ++i) v[(i * k) & 31] += x[i * blockDim.x + threadIdx.x];
  y[threadIdx.x] = v[(k + static_cast<int>(threadIdx.x)) & 31];
}
