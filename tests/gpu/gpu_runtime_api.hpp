// The GPU runtime calls the runtime's GPU tests make, under HIP's names: ROCm's HIP runtime in an AMD
// build (NOVA_ENABLE_HIP; hip::host defines __HIP_PLATFORM_AMD__), the CUDA runtime under the same
// names in an NVIDIA build. Host code only, so the host C++ compiler builds it either way (the
// kernels' own shim, nova/kernels/hip_compat.h, needs a HIP compiler to take the HIP side). Add names
// here only as the tests need them.
#pragma once

#if defined(__HIP_PLATFORM_AMD__) || defined(__HIP__)

#include <hip/hip_runtime_api.h>

#else

#include <cuda_runtime_api.h>

using hipError_t = cudaError_t;
using hipStream_t = cudaStream_t;
using hipGraph_t = cudaGraph_t;
using hipGraphExec_t = cudaGraphExec_t;
#define hipSuccess cudaSuccess
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipStreamCaptureModeGlobal cudaStreamCaptureModeGlobal

#define hipGetErrorString cudaGetErrorString
#define hipGetDeviceCount cudaGetDeviceCount
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipMemcpy cudaMemcpy
#define hipMemset cudaMemset
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamSynchronize cudaStreamSynchronize
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamBeginCapture cudaStreamBeginCapture
#define hipStreamEndCapture cudaStreamEndCapture
#define hipGraphGetNodes cudaGraphGetNodes
#define hipGraphInstantiateWithFlags cudaGraphInstantiateWithFlags  // HIP's hipGraphInstantiate takes 5 arguments
#define hipGraphLaunch cudaGraphLaunch
#define hipGraphExecDestroy cudaGraphExecDestroy
#define hipGraphDestroy cudaGraphDestroy

#endif
