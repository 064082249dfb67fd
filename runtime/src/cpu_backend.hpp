// Host paths: the FP64 direct reference and Winograd through the generated transforms + Eigen GEMM.
#pragma once

#include "conv_shape.hpp"

#include <vector>

namespace nova::runtime::cpu {

// U = G g G^T for every (k, c), stored [n*n][K][C]; rounded to fp16 when the dtype stores fp16.
std::vector<float> transform_filter(const ConvShape& shape, const TransformEntry& t, const float* weights);

// profile (nullable) receives the host time of the input transform, GEMM and output transform.
void winograd_forward(const ConvShape& shape, const TransformEntry& t, const void* x, const float* U,
                      const float* bias, int relu, void* y, float* workspace, nova_stage_profile_t* profile);

void direct_reference(const ConvShape& shape, const void* x, const float* weights, const float* bias, int relu, void* y);

}  // namespace nova::runtime::cpu
