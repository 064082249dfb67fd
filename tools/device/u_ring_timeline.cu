// When U's copies land, as the wgmma kernel's consumer streams them (docs/performance.md, "What bounds the wgmma
// kernel, second part": a pause of the consumer adds its whole time even with 5 copies outstanding; this probe asks
// whether the copies in flight land during the pause). A ring of 6 stages of 12 KB, each refilled by the copy
// engine (cp.async.bulk from an L2-resident filter of 24 stages) 5 stages ahead, as fused_wg_consume refills it; no
// products. A fifth warp watches the ring: it waits for each stage's barrier in turn and notes when it completed.
// Every block records in shared memory (no global stores on the way: an mbarrier arrival waits for them), for every
// stage: when its copy was issued and when the issuing instruction let the thread go on, when it landed (the watcher),
// when the consumer took it and when its barrier of 128 threads let it go on; block 0's records are printed.
// Modes: the consumer waits `spin` cycles after taking the first stage of each row of 4 (the fold's place in the
// kernel); `producer`: a sixth warp issues the copies, each once the consumer has freed its slot (an empty barrier),
// not the consumer's thread 0.
//   nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -I. -Iruntime/kernels/include -Iruntime/include \
//     tools/device/u_ring_timeline.cu -o u_ring_timeline && ./u_ring_timeline
#include "check.hpp"

#include "nova/kernels/wgmma.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace wg = nova::kernels;

constexpr int kSlots = 6, kStageBytes = 12288, kFilterStages = 24, kStages = kFilterStages * 100, kRow = 4;
constexpr int kConsumer = 128, kWatcher = 128, kProducer = 160;
enum Event { kIssued, kAccepted, kLanded, kTaken, kSynced, kEvents };
constexpr int kRecordBytes = kEvents * kStages * 4, kRingAt = 256 + kRecordBytes;

struct Mode {
  int spin = 0;
  bool producer = false;
  bool watch = true;  // false: no watcher (the landing times are the consumer's)
};

template <Mode kMode>
__global__ void __launch_bounds__(192, 1) ring(const char* filter, int* records) {
#if defined(NOVA_FUSED_WGMMA)
  extern __shared__ __align__(128) char shared[];
  auto* full = reinterpret_cast<wg::WgBarrier*>(shared);
  auto* empty = full + kSlots;
  auto* record = reinterpret_cast<int*>(shared + 256);  // [kEvents][kStages], cycles from the start
  char* u = shared + kRingAt;
  const int thread = static_cast<int>(threadIdx.x);
  if (thread == 0)
    for (int s = 0; s < kSlots; ++s) wg::wg_barrier_init(&full[s], 1), wg::wg_barrier_init(&empty[s], 1);
  __syncthreads();
  const long long start = clock64();
  const auto note = [&](Event e, int k) { record[e * kStages + k] = static_cast<int>(clock64() - start); };
  const auto fetch = [&](int k) {
    const int slot = k % kSlots;
    note(kIssued, k);
    wg::wg_arrive_expect_bytes(&full[slot], kStageBytes);
    wg::wg_bulk_copy(u + slot * kStageBytes, filter + static_cast<long long>(k % kFilterStages) * kStageBytes, kStageBytes, &full[slot]);
    note(kAccepted, k);  // whether issuing holds the thread up
  };
  if (thread < kConsumer) {
    if (!kMode.producer && thread == 0)
      for (int k = 0; k < kSlots - 1; ++k) fetch(k);
    for (int k = 0; k < kStages; ++k) {
      wg::wg_wait(&full[k % kSlots], (k / kSlots) & 1);
      if (thread == 0) note(kTaken, k);
      if constexpr (kMode.spin > 0)
        if (k % kRow == 0)
          for (const long long t0 = clock64(); clock64() - t0 < kMode.spin;) {
          }
      wg::wg_named_sync<1, kConsumer>();
      if (thread == 0) note(kSynced, k);
      // The slot of stage k - 1 is free (the kernel frees it after this stage's products): stage k + 5 goes there.
      if (thread == 0 && k + kSlots - 1 < kStages) {
        if constexpr (kMode.producer) {
          if (k >= 1) wg::wg_arrive(&empty[(k - 1) % kSlots]);
        } else {
          fetch(k + kSlots - 1);
        }
      }
    }
  } else if (kMode.watch && thread == kWatcher) {
    for (int k = 0; k < kStages; ++k) {
      wg::wg_wait(&full[k % kSlots], (k / kSlots) & 1);
      note(kLanded, k);
    }
  } else if (kMode.producer && thread == kProducer) {
    for (int k = 0; k < kSlots - 1; ++k) fetch(k);
    for (int k = kSlots - 1; k < kStages; ++k) {
      if (k >= kSlots) wg::wg_wait(&empty[k % kSlots], (k / kSlots - 1) & 1);  // the consumer took stage k - 6
      fetch(k);
    }
  }
  __syncthreads();
  if (blockIdx.x == 0)
    for (int i = thread; i < kEvents * kStages; i += blockDim.x) records[i] = record[i];
#else
  (void)filter, (void)records;
#endif
}

template <Mode kMode>
void measure(const char* name, int blocks, const char* filter, int* d) {
  auto kernel = ring<kMode>;
  constexpr int kBytes = kRingAt + kSlots * kStageBytes;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes));
  for (int run = 0; run < 2; ++run) {  // the first warms up
    kernel<<<blocks, 192, kBytes>>>(filter, d);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
  }
  std::vector<int> h(kEvents * kStages);
  CHECK(cudaMemcpy(h.data(), d, sizeof(int) * h.size(), cudaMemcpyDeviceToHost));
  const auto at = [&](Event e, int k) { return static_cast<double>(h[e * kStages + k]); };
  const Event landing = kMode.watch ? kLanded : kTaken;  // without the watcher, when the consumer saw it
  // Steady state: the middle half of the stages.
  const int from = kStages / 4, to = 3 * kStages / 4;
  double latency = 0, issuing = 0, idle = 0;
  int during = 0, pauses = 0;
  for (int k = from; k < to; ++k) {
    latency += at(landing, k) - at(kIssued, k), issuing += at(kAccepted, k) - at(kIssued, k);
    // Landings while the consumer pauses: stages that landed between a row's first take and the take after it.
    if (k % kRow == 0) {
      ++pauses;
      for (int j = k + 1; j < k + kSlots; ++j) during += at(landing, j) > at(kTaken, k) && at(landing, j) < at(kTaken, k + 1);
    }
    // No copy in flight between stage k's landing and the next issue: the copy engine idle.
    int in_flight = 0;
    for (int j = k + 1; j < k + 2 * kSlots; ++j) in_flight += at(kIssued, j) <= at(landing, k) && at(landing, j) > at(landing, k);
    if (in_flight == 0) idle += at(landing, k + 1) - std::max(at(landing, k), at(kIssued, k + 1));
  }
  const double interval = (at(landing, to) - at(landing, from)) / (to - from);
  std::printf("%-36s %6.1f cycles a landing (%5.1f bytes a cycle), issue to landing %6.1f, issuing %5.1f, "
              "landings in a pause %4.2f, copy engine idle %5.1f cycles a stage\n",
              name, interval, kStageBytes / interval, latency / (to - from), issuing / (to - from),
              pauses ? static_cast<double>(during) / pauses : 0.0, idle / (to - from));
  std::printf("  stage   issued accepted   landed    taken   synced (block 0, cycles from stage %d's issue)\n", kStages / 2);
  const double t0 = at(kIssued, kStages / 2);
  for (int k = kStages / 2; k < kStages / 2 + 8; ++k)
    std::printf("  %5d %8.0f %8.0f %8.0f %8.0f %8.0f\n", k, at(kIssued, k) - t0, at(kAccepted, k) - t0, at(landing, k) - t0,
                at(kTaken, k) - t0, at(kSynced, k) - t0);
}

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  char* filter = nullptr;
  int* d = nullptr;
  CHECK(cudaMalloc(&filter, static_cast<size_t>(kFilterStages) * kStageBytes));
  CHECK(cudaMemset(filter, 0, static_cast<size_t>(kFilterStages) * kStageBytes));
  CHECK(cudaMalloc(&d, sizeof(int) * kEvents * kStages));
  std::printf("%d blocks, one an SM\n", sms);
  measure<Mode{}>("consumer refills", sms, filter, d);
  measure<Mode{.watch = false}>("consumer refills, no watcher", sms, filter, d);
  measure<Mode{.spin = 400}>("consumer refills, 400-cycle wait", sms, filter, d);
  measure<Mode{.producer = true}>("producer warp refills", sms, filter, d);
  measure<Mode{.spin = 400, .producer = true}>("producer warp refills, 400-cycle wait", sms, filter, d);
  CHECK(cudaFree(filter));
  CHECK(cudaFree(d));
  return 0;
}
