// L2 read bandwidth for a buffer that stays in L2 (the fused kernel's U, re-read by every block):
// every block streams the whole buffer with 16-byte loads that bypass L1 (ld.global.cg, as the
// fused kernel's U loads do). Prints GB/s and bytes per clock per SM (at the maximum SM clock).
//   nvcc -O3 -arch=sm_90 tools/device/l2_bandwidth.cu -o l2_bandwidth && ./l2_bandwidth [MB]
#include "check.hpp"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>


__global__ void stream_reads(const int4* __restrict__ buffer, long long vectors, int passes, int* sink) {
  int acc = 0;
  for (int pass = 0; pass < passes; ++pass)
    for (long long i = threadIdx.x + static_cast<long long>(blockDim.x) * ((blockIdx.x + pass) % 64); i < vectors;
         i += blockDim.x) {
      int4 v;
      asm volatile("ld.global.cg.v4.s32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(buffer + i));
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  if (acc == 0x7fffffff) *sink = acc;  // keeps the loads
}

int main(int argc, char** argv) {
  const double mb = argc > 1 ? std::atof(argv[1]) : 1.18;  // U of a 128 x 128 F(4,3) layer
  const long long vectors = static_cast<long long>(mb * 1e6 / 16);
  int sms = 0, clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  int4* buffer = nullptr;
  int* sink = nullptr;
  CHECK(cudaMalloc(&buffer, vectors * 16));
  CHECK(cudaMalloc(&sink, 4));
  CHECK(cudaMemset(buffer, 1, vectors * 16));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  const int passes = 4;
  std::printf("%8s %8s %10s %14s\n", "blocks", "threads", "GB/s", "B/clk/SM");
  for (int per_sm : {1, 2}) {
    const int threads = 512 / per_sm, blocks = sms * per_sm * 4;
    stream_reads<<<blocks, threads>>>(buffer, vectors, passes, sink);  // warm-up: fills L2
    CHECK(cudaGetLastError());
    float best = 1e30f;
    for (int rep = 0; rep < 10; ++rep) {
      CHECK(cudaEventRecord(start));
      stream_reads<<<blocks, threads>>>(buffer, vectors, passes, sink);
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      best = ms < best ? ms : best;
    }
    const double bytes = static_cast<double>(blocks) * passes * vectors * 16;
    const double gbs = bytes / (best * 1e6);
    std::printf("%8d %8d %10.0f %14.1f\n", blocks, threads, gbs, gbs * 1e9 / sms / (clock_khz * 1e3));
  }
  return 0;
}
