// The rate of mma.sync m16n8k16 (fp16 in, fp32 accumulate) on this GPU, in the shapes the fused
// kernel's matrix loop uses it: `chains` independent accumulators a warp, `warps` warps a block,
// one block an SM; optionally an ldmatrix.x4 from shared memory (conflict-free, or with the 2-way
// bank conflict of 32-byte rows) feeding every `share` mmas, as V does, and an 8-byte global load
// per mma, as U does, from an L2-resident buffer that every SM walks in the same order or, with a
// stagger, each from its own start. Prints TFLOP/s and cycles per mma per scheduler.
//   nvcc -O3 -arch=sm_90 tools/device/mma_rate.cu -o mma_rate && ./mma_rate
#include "check.hpp"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>


constexpr int kSteps = 4096;

enum class Ld { none, conflict_free, two_way };

template <int kChains, Ld kLd, int kShare, bool kGlobal>
__global__ void mma_loop(const uint2* __restrict__ u, int stagger, float* sink) {
  __shared__ __align__(16) unsigned short tile[16 * 16 * 16];
  for (int i = threadIdx.x; i < 16 * 16 * 16; i += blockDim.x) tile[i] = static_cast<unsigned short>(0x3c00 + (i & 7));
  __syncthreads();
  const int lane = threadIdx.x % 32;
  float acc[kChains][4] = {};
  unsigned a0 = 0x3c003c00u, a1 = a0, a2 = a0, a3 = a0;
  const auto base = static_cast<unsigned>(__cvta_generic_to_shared(tile)) +
                    (kLd == Ld::two_way ? lane % 16 * 32 + lane / 16 * 16 : lane * 16);
  unsigned b0 = 0x3c003c00u, b1 = b0;
#pragma unroll 1
  for (int step = 0; step < kSteps; ++step) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) {
      if (kLd != Ld::none && c % kShare == 0)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                     : "r"(base + (c % 16) * 512));
      if (kGlobal)
        asm volatile("ld.global.cg.v2.u32 {%0, %1}, [%2];\n" : "=r"(b0), "=r"(b1) : "l"(u + (step * kChains + c + blockIdx.x * stagger) % 4096 * 32 + lane));
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                   "{%0, %1, %2, %3};\n"
                   : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
                   : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
  }
  float total = 0;
  for (int c = 0; c < kChains; ++c) total += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  if (total == 1.2345f) *sink = total;
}

template <int kChains, Ld kLd, int kShare, bool kGlobal>
void measure(int warps, int sms, int clock_khz, const uint2* u, float* sink, int stagger = 0) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  const int blocks = sms;
  mma_loop<kChains, kLd, kShare, kGlobal><<<blocks, 32 * warps>>>(u, stagger, sink);
  CHECK(cudaGetLastError());
  float best = 1e30f;
  for (int rep = 0; rep < 5; ++rep) {
    CHECK(cudaEventRecord(start));
    mma_loop<kChains, kLd, kShare, kGlobal><<<blocks, 32 * warps>>>(u, stagger, sink);
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    best = ms < best ? ms : best;
  }
  const double mmas = static_cast<double>(blocks) * warps * kSteps * kChains;
  const double tflops = mmas * 2 * 16 * 8 * 16 / (best * 1e9);
  const double cycles_per_mma_per_scheduler = best * 1e-3 * clock_khz * 1e3 / (mmas / sms / 4);
  const char* ld = kLd == Ld::none ? "-" : kLd == Ld::conflict_free ? "yes" : "2-way";
  std::printf("%6d %6d %9s %6d %7s %8d %9.0f %12.1f\n", warps, kChains, ld, kShare, kGlobal ? "yes" : "-", stagger,
              tflops, cycles_per_mma_per_scheduler);
}

int main() {
  int sms = 0, clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  float* sink = nullptr;
  uint2* u = nullptr;  // 1 MB, as U of a 128 x 128 layer: stays in L2
  CHECK(cudaMalloc(&sink, 4));
  CHECK(cudaMalloc(&u, 4096 * 32 * sizeof(uint2)));
  CHECK(cudaMemset(u, 0, 4096 * 32 * sizeof(uint2)));
  std::printf("%6s %6s %9s %6s %7s %8s %9s %12s\n", "warps", "chains", "ldmatrix", "share", "global", "stagger", "TFLOP/s",
              "cyc/mma/sch");
  measure<6, Ld::none, 1, false>(16, sms, clock_khz, u, sink);
  measure<6, Ld::two_way, 1, false>(16, sms, clock_khz, u, sink);
  measure<6, Ld::conflict_free, 1, false>(16, sms, clock_khz, u, sink);
  measure<6, Ld::conflict_free, 1, true>(16, sms, clock_khz, u, sink);
  measure<12, Ld::conflict_free, 2, false>(8, sms, clock_khz, u, sink);
  measure<12, Ld::conflict_free, 2, true>(8, sms, clock_khz, u, sink);
  measure<6, Ld::none, 1, true>(16, sms, clock_khz, u, sink);
  // The same U lines read by every SM at once (as the fused kernel's blocks, which all walk U in one
  // order), against each SM starting elsewhere.
  measure<6, Ld::none, 1, true>(16, sms, clock_khz, u, sink, 97);
  measure<6, Ld::conflict_free, 1, true>(16, sms, clock_khz, u, sink, 97);
  measure<12, Ld::conflict_free, 2, true>(8, sms, clock_khz, u, sink, 97);
  return 0;
}
