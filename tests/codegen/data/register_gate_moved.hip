// Register gate fixture (tests/codegen/CMakeLists.txt): a plain kernel named as the generated ones are (config
// "gate", kernel "filter_f16"), checked against a table (tests/codegen/check_gate.sh writes it) that records
// registers it does not use.
extern "C" __global__ void nova_gate_filter_f16(const float* x, float* y) {
  y[threadIdx.x] = 2.0f * x[threadIdx.x];
}
