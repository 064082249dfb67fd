// NOVA_HD marks functions that run on the host and on the GPU (generated transforms, the CPU path
// and the kernels share them). Plain C++ compilers see an empty macro.
#pragma once

#include <type_traits>

#if defined(__CUDACC__) || defined(__HIP__)
#define NOVA_HD __host__ __device__
#else
#define NOVA_HD
#endif

// A kernel parameter that the copy engine reads where it lies (the wgmma kernels' tensor map of x):
// CUDA's __grid_constant__ (the parameter stays const and in place); nothing elsewhere.
#if (defined(__CUDACC__) || defined(__CUDACC_RTC__)) && !defined(__HIP__)
#define NOVA_GRID_CONSTANT __grid_constant__
#else
#define NOVA_GRID_CONSTANT
#endif

// The host launchers exist in GPU builds; neither the CPU emulation (tests/codegen) nor a compiler at
// run time (NVRTC: device code only, nova_transform_load) sees them.
#if !defined(NOVA_KERNEL_EMULATION) && !defined(__CUDACC_RTC__)
#define NOVA_HOST_LAUNCHERS 1
#endif

namespace nova::kernels {

// A constant of a generated transform in compute type T (float or double). The generator passes
// both correctly rounded values of the exact rational, so neither type sees a double rounding.
template <typename T>
NOVA_HD constexpr T rounded(float as_float, double as_double) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "transforms compute in float or double");
  if constexpr (std::is_same_v<T, double>) {
    return as_double;
  } else {
    return as_float;
  }
}

}  // namespace nova::kernels
