// Just enough of the GPU programming model to run the kernel loops of nova/kernels/ (transform,
// fused and layout kernels, AMD's wave64 matrix products) on the CPU: a grid runs one block at a time, and the block's
// threads are coroutines (ucontext) that __syncthreads() switches between, so every thread of the
// block reaches a barrier before any passes it, as on a GPU. Slow, exact, and needs no GPU.
#pragma once

#define NOVA_KERNEL_EMULATION 1

#include "float16.hpp"

#include <ucontext.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>

#define __device__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static  // one block at a time, so one copy serves every block

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3() = default;
  dim3(unsigned x_, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
inline dim3 threadIdx, blockIdx, blockDim, gridDim;

__extension__ typedef _Float16 __half;  // IEEE binary16, rounding to nearest even like the GPU's
inline float __half2float(__half h) { return static_cast<float>(h); }
inline __half __float2half_rn(float v) { return static_cast<__half>(v); }

// bfloat16 as hip/hip_bfloat16.h (and CUDA's __nv_bfloat16) gives it to the kernels: made from a
// float rounding to nearest even, read as float.
struct hip_bfloat16 {
  uint16_t data;
  hip_bfloat16() = default;
  explicit hip_bfloat16(float v) : data(nova::runtime::float_to_bf16(v)) {}
  operator float() const { return nova::runtime::bf16_to_float(data); }
};
using std::fmaxf;

namespace nova::emulation {

inline ucontext_t scheduler;
inline std::vector<ucontext_t> threads;
inline std::vector<bool> finished;
inline unsigned current = 0;
inline std::function<void()> body;
inline std::vector<char> dynamic_shared;  // extern __shared__ memory: size it before a launch

// A kernel waiting for what never comes: a failure to report, not a hang. A wait calls this with the
// spins it has made; past a minute (the tests' longest kernels run in seconds) it ends the program.
inline void check_deadlock(long spins, std::chrono::steady_clock::time_point since, const char* what) {
  if (spins % 4096 != 4095 || std::chrono::steady_clock::now() - since < std::chrono::minutes(1)) return;
  std::fprintf(stderr, "emulated kernel deadlocked: %s never completed (block %u, thread %u)\n", what, blockIdx.x,
               threadIdx.x);
  std::abort();
}

inline void thread_main() {
  body();
  finished[current] = true;  // then back to the scheduler through uc_link
}

inline constexpr std::size_t kStackBytes = 128 * 1024;

// A fresh coroutine for thread t. Kept out of line: getcontext returns twice, and the loops of
// its caller must not live in the same frame.
[[gnu::noinline]] inline void start_thread(unsigned t, char* stack) {
  getcontext(&threads[t]);
  threads[t].uc_stack.ss_sp = stack;
  threads[t].uc_stack.ss_size = kStackBytes;
  threads[t].uc_link = &scheduler;
  makecontext(&threads[t], thread_main, 0);
  finished[t] = false;
}

[[gnu::noinline]] inline void resume_thread(unsigned t) {
  threadIdx = dim3(t);
  current = t;
  swapcontext(&scheduler, &threads[t]);
}

// Blocks run in index order, or in reverse where this is set: a block that writes beyond its own
// outputs is then caught in either direction (on a GPU that would race with the block that owns them).
inline bool reverse_block_order = false;

// Runs `kernel` (a callable with the body of a __global__ function) on grid x block threads.
template <typename Kernel>
void launch(dim3 grid, unsigned block_threads, Kernel kernel) {
  body = kernel;
  gridDim = grid;
  blockDim = dim3(block_threads);
  threads.assign(block_threads, ucontext_t{});
  finished.assign(block_threads, false);
  static std::vector<std::unique_ptr<char[]>> stacks;  // kept for the next launch
  while (stacks.size() < block_threads) stacks.push_back(std::make_unique_for_overwrite<char[]>(kStackBytes));
  for (unsigned y = 0; y < grid.y; ++y) {
    for (unsigned x = 0; x < grid.x; ++x) {
      blockIdx = reverse_block_order ? dim3(grid.x - 1 - x, grid.y - 1 - y) : dim3(x, y);
      for (unsigned t = 0; t < block_threads; ++t) start_thread(t, stacks[t].get());
      // Each round runs every live thread to its next barrier (or its end).
      for (bool running = true; running;) {
        running = false;
        for (unsigned t = 0; t < block_threads; ++t) {
          if (finished[t]) continue;
          resume_thread(t);
          running = true;
        }
      }
    }
  }
}

}  // namespace nova::emulation

inline void __syncthreads() {
  swapcontext(&nova::emulation::threads[nova::emulation::current], &nova::emulation::scheduler);
}

// What the MFMA kernel (nova/kernels/fused_mfma_kernels.hpp) needs beyond that: a barrier that counts
// the block's threads, and AMD's wave64 matrix product with its lane layouts.
namespace nova::emulation {

// A barrier of every thread of the block that holds even where threads meet other yields
// (__syncthreads, an MFMA's lane exchange) in between: each waits until the last one arrives.
inline void block_barrier() {
  static unsigned arrived = 0, generation = 0;
  const unsigned mine = generation;
  if (++arrived == blockDim.x) arrived = 0, ++generation;
  while (generation == mine) __syncthreads();
}

inline constexpr unsigned kWave = 64;

// Where the operand elements and accumulators of v_mfma_f32_16x16x16{f16,bf16_1k} live (AMD CDNA3 ISA,
// "Matrix fused multiply-add"): lane l holds A[l % 16][4 (l / 16) + i], B[4 (l / 16) + i][l % 16] and
// D[4 (l / 16) + i][l % 16], i = 0 .. 3. `transposed_accumulator` is a deliberately wrong mapping (D
// as [l % 16][4 (l / 16) + i]) with which the kernel's tests must fail: the test of the tests.
enum class MfmaLanes { documented, transposed_accumulator };
inline MfmaLanes mfma_lanes = MfmaLanes::documented;

struct MfmaLane {
  int row, column;
};
inline MfmaLane mfma_a(unsigned lane, int i) { return {static_cast<int>(lane % 16), static_cast<int>(4 * (lane / 16)) + i}; }
inline MfmaLane mfma_b(unsigned lane, int i) { return {static_cast<int>(4 * (lane / 16)) + i, static_cast<int>(lane % 16)}; }
inline MfmaLane mfma_d(unsigned lane, int i) {
  const MfmaLane d{static_cast<int>(4 * (lane / 16)) + i, static_cast<int>(lane % 16)};
  return mfma_lanes == MfmaLanes::documented ? d : MfmaLane{d.column, d.row};
}

// The 64 lanes of one wave meet here: each posts its fragments, waits for the wave, computes its
// accumulators from the assembled 16 x 16 A and B (products rounded to fp32 and summed in fp32, as
// the matrix cores do up to the order of the sums), and waits again before the exchange is reused.
struct WaveExchange {
  float a[16][16], b[16][16];
  unsigned arrived = 0, generation = 0;
  void barrier() {
    const unsigned mine = generation;
    if (++arrived == kWave) arrived = 0, ++generation;
    while (generation == mine) __syncthreads();
  }
};

inline void mfma_f32_16x16x16(const float (&a)[4], const float (&b)[4], float (&acc)[4]) {
  static std::vector<WaveExchange> waves;
  const unsigned lane = threadIdx.x % kWave, wave = threadIdx.x / kWave;
  if (waves.size() < (blockDim.x + kWave - 1) / kWave) waves.resize((blockDim.x + kWave - 1) / kWave);
  WaveExchange& w = waves[wave];
  for (int i = 0; i < 4; ++i) {
    const MfmaLane at = mfma_a(lane, i), bt = mfma_b(lane, i);
    w.a[at.row][at.column] = a[i], w.b[bt.row][bt.column] = b[i];
  }
  w.barrier();
  for (int i = 0; i < 4; ++i) {
    const MfmaLane d = mfma_d(lane, i);
    float sum = acc[i];
    for (int k = 0; k < 16; ++k) sum += w.a[d.row][k] * w.b[k][d.column];
    acc[i] = sum;
  }
  w.barrier();
}

}  // namespace nova::emulation
