// Host paths: the FP64 direct reference, and the CPU backend (Winograd through the generated
// transforms + Eigen GEMM) that make_cpu_backend() in backend.hpp returns.
#pragma once

#include "conv_shape.hpp"

namespace nova::runtime::cpu {

void direct_reference(const ConvShape& shape, const void* x, const float* weights, const float* bias, int relu, void* y);

}  // namespace nova::runtime::cpu
