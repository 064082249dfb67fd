// What limits one SM's bulk copies from L2, and what the SM's other warps do to them (docs/performance.md, "What
// bounds the wgmma kernel, third part"). Copier warps (lane 0 of warps 0, 1, ...) each stream copies of `bytes` from an
// L2-resident source into a ring of `slots` slots of their own: copy k waits for copy k - slots to land, so each
// copier keeps `slots` copies in flight. Worker warps run beside them a loop of one kind:
//   fma     16 independent FMAs a step (as busy as the warp scheduler lets them be)
//   lds     a chain of dependent shared-memory loads
//   mbar    mbarrier.test_wait of a completed phase, in a loop
// Prints the copies' bytes a cycle an SM and the workers' cycles a step. Every SM runs one block.
//   nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -I. -Iruntime/kernels/include -Iruntime/include \
//     tools/device/copy_interference.cu -o copy_interference && ./copy_interference
#include "check.hpp"

#include "nova/kernels/wgmma.hpp"

#include <cstdint>
#include <cstdio>

namespace wg = nova::kernels;

enum class Work { fma, lds, mbar };
struct Mode {
  int copiers = 1, slots = 6, bytes = 12288;
  int workers = 0, first_worker = 4;  // warps first_worker ...; warp w runs on SMSP w % 4
  Work work = Work::fma;
};
constexpr int kThreads = 384, kSteps = 4096, kMaxCopies = 4000, kSourceBytes = 12 * 32768, kHeader = 512, kChain = 4096;

template <Mode M>
__global__ void __launch_bounds__(kThreads, 1) interfere(const char* source, long long* out, float* sink) {
#if defined(NOVA_FUSED_WGMMA)
  extern __shared__ __align__(128) char shared[];
  auto* full = reinterpret_cast<wg::WgBarrier*>(shared);  // [copiers][slots]
  auto* completed = full + 32;
  volatile int* stop = reinterpret_cast<volatile int*>(shared + 400);
  auto* chain = reinterpret_cast<unsigned*>(shared + kHeader);
  char* ring = shared + kHeader + kChain;
  const int thread = static_cast<int>(threadIdx.x), warp = thread / 32;
  if (thread == 0) {
    for (int s = 0; s < M.copiers * M.slots; ++s) wg::wg_barrier_init(&full[s], 1);
    wg::wg_barrier_init(completed, 1);
    *stop = 0;
  }
  for (int i = thread; i < kChain / 4; i += blockDim.x) chain[i] = (i * 4 + 97 * 4) % kChain;
  __syncthreads();
  if (thread == 0) wg::wg_arrive(completed);  // phase 0 completes: test_wait of parity 0 is true from now on
  __syncthreads();
  if (warp < M.copiers) {
    if (thread % 32 != 0) return;
    wg::WgBarrier* mine = full + warp * M.slots;
    char* slots = ring + warp * M.slots * M.bytes;
    const long long start = clock64();
    int k = 0;
    for (; k < kMaxCopies && !(M.workers > 0 && *stop); ++k) {
      const int s = k % M.slots;
      if (k >= M.slots) wg::wg_wait(&mine[s], (k / M.slots - 1) & 1);
      wg::wg_arrive_expect_bytes(&mine[s], M.bytes);
      wg::wg_bulk_copy(slots + s * M.bytes, source + static_cast<long long>(k % (kSourceBytes / M.bytes)) * M.bytes, M.bytes, &mine[s]);
    }
    for (int j = k > M.slots ? k - M.slots : 0; j < k; ++j) wg::wg_wait(&mine[j % M.slots], (j / M.slots) & 1);
    if (warp == 0) out[blockIdx.x] = clock64() - start, out[gridDim.x + blockIdx.x] = static_cast<long long>(k) * M.copiers;
  } else if (warp >= M.first_worker && warp < M.first_worker + M.workers) {
    float acc[16];
    for (int i = 0; i < 16; ++i) acc[i] = static_cast<float>(thread + i);
    unsigned at = (thread % 32) * 4, hits = 0;
    const std::uint32_t chain_at = wg::wg_shared_address(chain), barrier_at = wg::wg_shared_address(completed);
    const long long start = clock64();
#pragma unroll 1
    for (int step = 0; step < kSteps; ++step) {
      if constexpr (M.work == Work::fma) {
#pragma unroll
        for (int i = 0; i < 16; ++i) acc[i] = acc[i] * 0.999f + 0.25f;
      } else if constexpr (M.work == Work::lds) {
        asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(at) : "r"(chain_at + at));
      } else {
        unsigned done;
        asm volatile("{\n.reg .pred p;\nmbarrier.test_wait.parity.shared::cta.b64 p, [%1], 0;\nselp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(barrier_at)
                     : "memory");
        hits += done;
      }
    }
    const long long cycles = clock64() - start;
    float total = static_cast<float>(at + hits);
    for (float x : acc) total += x;
    if (total == 12345.0f) sink[thread] = total;  // keeps the work
    if (warp == M.first_worker && thread % 32 == 0) {
      out[2 * gridDim.x + blockIdx.x] = cycles;
      *stop = 1;
    }
  }
#else
  (void)source, (void)out, (void)sink;
#endif
}

template <Mode M>
void measure(const char* name, int sms, const char* source, long long* out, float* sink) {
  const int bytes = kHeader + kChain + M.copiers * M.slots * M.bytes;
  CHECK(cudaFuncSetAttribute(interfere<M>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  for (int run = 0; run < 2; ++run) {  // the first warms up
    CHECK(cudaMemset(out, 0, sizeof(long long) * 3 * sms));
    interfere<M><<<sms, kThreads, bytes>>>(source, out, sink);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
  }
  long long first[3];  // block 0's
  CHECK(cudaMemcpy(&first[0], out, sizeof(long long), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&first[1], out + sms, sizeof(long long), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&first[2], out + 2 * sms, sizeof(long long), cudaMemcpyDeviceToHost));
  std::printf("%-58s", name);
  if (M.copiers > 0) {
    const double rate = static_cast<double>(first[1]) * M.bytes / static_cast<double>(first[0]);
    // Little's law: the copies in flight over the rate.
    std::printf(" copies %5.1f bytes a cycle (in flight %3d KB: %5.0f cycles a copy's latency)", rate,
                M.copiers * M.slots * M.bytes / 1024, M.copiers * M.slots * M.bytes / rate);
  }
  if (M.workers > 0) std::printf("  workers %6.2f cycles a step", static_cast<double>(first[2]) / kSteps);
  std::printf("\n");
}

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  char* source = nullptr;
  long long* out = nullptr;
  float* sink = nullptr;
  CHECK(cudaMalloc(&source, kSourceBytes));
  CHECK(cudaMemset(source, 0, kSourceBytes));
  CHECK(cudaMalloc(&out, sizeof(long long) * 3 * sms));
  CHECK(cudaMalloc(&sink, sizeof(float) * kThreads));
  std::printf("%d SMs, one block each; a copier keeps `slots` copies in flight\n", sms);
  // The copies alone: bytes in flight, by copy size, slots and copiers.
  measure<Mode{.slots = 2}>("1 copier, 2 slots of 12 KB", sms, source, out, sink);
  measure<Mode{.slots = 3}>("1 copier, 3 slots of 12 KB", sms, source, out, sink);
  measure<Mode{}>("1 copier, 6 slots of 12 KB", sms, source, out, sink);
  measure<Mode{.slots = 12}>("1 copier, 12 slots of 12 KB", sms, source, out, sink);
  measure<Mode{.slots = 6, .bytes = 6144}>("1 copier, 6 slots of 6 KB", sms, source, out, sink);
  measure<Mode{.slots = 6, .bytes = 24576}>("1 copier, 6 slots of 24 KB", sms, source, out, sink);
  measure<Mode{.slots = 6, .bytes = 32768}>("1 copier, 6 slots of 32 KB", sms, source, out, sink);
  measure<Mode{.copiers = 2}>("2 copiers (SMSPs 0, 1), 6 slots of 12 KB each", sms, source, out, sink);
  measure<Mode{.copiers = 2, .bytes = 16384}>("2 copiers (SMSPs 0, 1), 6 slots of 16 KB each", sms, source, out, sink);
  // Workers beside the copier (warp 0, SMSP 0).
  measure<Mode{.copiers = 0, .workers = 4}>("4 FMA warps alone (one an SMSP)", sms, source, out, sink);
  measure<Mode{.workers = 4}>("copier + 4 FMA warps (one an SMSP)", sms, source, out, sink);
  measure<Mode{.workers = 1}>("copier + 1 FMA warp on its SMSP", sms, source, out, sink);
  measure<Mode{.workers = 3, .first_worker = 1}>("copier + 3 FMA warps on the other SMSPs", sms, source, out, sink);
  measure<Mode{.bytes = 24576, .workers = 4}>("copier (24 KB) + 4 FMA warps", sms, source, out, sink);
  measure<Mode{.copiers = 0, .workers = 1, .work = Work::lds}>("a shared-load chain alone", sms, source, out, sink);
  measure<Mode{.workers = 1, .work = Work::lds}>("copier + a shared-load chain on its SMSP", sms, source, out, sink);
  measure<Mode{.workers = 1, .first_worker = 5, .work = Work::lds}>("copier + a shared-load chain on SMSP 1", sms, source, out, sink);
  measure<Mode{.copiers = 0, .workers = 1, .work = Work::mbar}>("mbarrier test_wait alone", sms, source, out, sink);
  measure<Mode{.workers = 1, .work = Work::mbar}>("copier + mbarrier test_wait on its SMSP", sms, source, out, sink);
  CHECK(cudaFree(source));
  CHECK(cudaFree(out));
  CHECK(cudaFree(sink));
  return 0;
}
