// The HIP subset NOVA's GPU sources use, for nvcc. Under a HIP compiler (hip-clang, hipcc), or a
// host compiler building against ROCm's HIP runtime (hip::host defines __HIP_PLATFORM_AMD__), this
// header only includes HIP itself; under nvcc, or a host compiler building against the CUDA
// runtime, it maps each HIP name onto its CUDA twin. Add names here only as sources (the GPU tests
// among them) need them.
//
// Wave size: never assume one. NVIDIA warps have 32 lanes, CDNA wavefronts 64, RDNA 32 (wave32)
// or 64; device code reads `warpSize` (docs/design.md §8).
#pragma once

#if defined(__HIP__) || defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)

#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
// After hip_runtime.h, which defines __HIPCC__: before it this header declares only a bare struct.
#include <hip/hip_bfloat16.h>

#else  // CUDA

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

// Types and status codes. bfloat16: ROCm's hip_bfloat16 (hip/hip_bfloat16.h) and CUDA's
// __nv_bfloat16 share what the kernels use: construction from float rounding to nearest even, and
// conversion to float.
using hip_bfloat16 = __nv_bfloat16;
using hipError_t = cudaError_t;
using hipStream_t = cudaStream_t;
using hipEvent_t = cudaEvent_t;
using hipDeviceProp_t = cudaDeviceProp;
using hipMemcpyKind = cudaMemcpyKind;
using hipGraph_t = cudaGraph_t;
using hipGraphExec_t = cudaGraphExec_t;
#define hipSuccess cudaSuccess
#define hipErrorInvalidValue cudaErrorInvalidValue
#define hipErrorOutOfMemory cudaErrorMemoryAllocation
#define hipErrorNoDevice cudaErrorNoDevice
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipStreamCaptureModeGlobal cudaStreamCaptureModeGlobal

// Runtime API.
#define hipGetErrorString cudaGetErrorString
#define hipGetErrorName cudaGetErrorName
#define hipGetLastError cudaGetLastError
#define hipPeekAtLastError cudaPeekAtLastError
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetDevice cudaGetDevice
#define hipSetDevice cudaSetDevice
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipDeviceAttributeSharedMemPerBlockOptin cudaDevAttrMaxSharedMemoryPerBlockOptin
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#define hipDeviceAttributeMemoryClockRate cudaDevAttrMemoryClockRate
#define hipDeviceAttributeMemoryBusWidth cudaDevAttrGlobalMemoryBusWidth
#define hipDeviceAttributeComputeCapabilityMajor cudaDevAttrComputeCapabilityMajor
#define hipDeviceAttributeComputeCapabilityMinor cudaDevAttrComputeCapabilityMinor
#define hipFuncSetAttribute cudaFuncSetAttribute
#define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemset cudaMemset
#define hipMemsetAsync cudaMemsetAsync
#define hipStreamCreate cudaStreamCreate
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipEventCreate cudaEventCreate
#define hipEventDestroy cudaEventDestroy
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
#define hipStreamBeginCapture cudaStreamBeginCapture
#define hipStreamEndCapture cudaStreamEndCapture
#define hipGraphGetNodes cudaGraphGetNodes
#define hipGraphInstantiateWithFlags cudaGraphInstantiateWithFlags  // HIP's hipGraphInstantiate takes 5 arguments
#define hipGraphLaunch cudaGraphLaunch
#define hipGraphExecDestroy cudaGraphExecDestroy
#define hipGraphDestroy cudaGraphDestroy

#define hipLaunchKernel cudaLaunchKernel

// Cross-lane shuffles: HIP's take no mask and act on the whole wavefront; on NVIDIA the whole
// wavefront is a 32-lane warp, so the _sync forms with every lane in the mask are exact twins.
#define __shfl(...) __shfl_sync(0xffffffffu, __VA_ARGS__)
#define __shfl_up(...) __shfl_up_sync(0xffffffffu, __VA_ARGS__)
#define __shfl_down(...) __shfl_down_sync(0xffffffffu, __VA_ARGS__)
#define __shfl_xor(...) __shfl_xor_sync(0xffffffffu, __VA_ARGS__)

#endif
