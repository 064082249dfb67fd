// Hopper's warpgroup matrix product (wgmma, sm_90a) as the wgmma fused kernel uses it: D (64 x N,
// fp32, in registers) += A (64 x 16) B (16 x N), both operands read by the tensor cores from shared
// memory through 64-bit descriptors, 16-bit types only, N = 8 or 16.
//
// Operand layout (both A and B "K-major", no swizzle): an operand block of R rows (A: 64 output
// channels; B: N tiles) x 16 reduction elements (channels) is made of 8 x 8 core matrices, each 128
// contiguous bytes (8 rows of 16 bytes); core matrix (row / 8, k / 8) lies at ((row / 8) 2 + k / 8)
// x 128 bytes, so the descriptor's leading byte offset (core matrices adjacent along k) is 128 and
// its stride byte offset (adjacent along rows) is 256 (PTX ISA, "Matrix Descriptor Format").
//
// Accumulator fragment (PTX ISA, wgmma "Register Fragments", D of m64nNk16): thread (warp w of the
// warpgroup, lane l) holds rows 16 w + l / 4 and + 8, columns 8 b + 2 (l % 4) + {0, 1} for each
// 8-column block b; wg_accumulator_row / wg_accumulator_column name the element of register d.
//
// Off sm_90a (the CPU emulation; a compile for any other target) wgmma_m64k16 is a per-thread
// product that reads the operands through the same descriptors, so the emulation tests check the
// descriptor and fragment arithmetic, not a copy of it.
#pragma once

#include "nova/kernels/fused_kernels.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace nova::kernels {

inline constexpr int kWgRows = 64;              // wgmma's M: output channels of a consumer's block
inline constexpr int kWgDepth = 16;             // its K: channels of one product
inline constexpr int kWgCoreBytes = 128;        // one 8 x 8 core matrix of 16-bit elements
inline constexpr int kWgLeadingBytes = 128;     // core matrices adjacent along k
inline constexpr int kWgStrideBytes = 256;      // core matrices adjacent along rows (two along k)

// Element (row, k) of a K-major operand block, in elements from its start.
NOVA_HD constexpr int wg_operand_offset(int row, int k) {
  return ((row / 8) * 2 + k / 8) * (kWgCoreBytes / 2) + (row % 8) * 8 + k % 8;
}
// Elements of one operand block of `rows` rows.
NOVA_HD constexpr int wg_operand_elements(int rows) { return rows * kWgDepth; }

// Row and column of accumulator register d (0 .. N / 2 - 1) of thread `thread` (0 .. 127) of the
// warpgroup.
NOVA_HD constexpr int wg_accumulator_row(int thread, int d) { return thread / 32 * 16 + thread % 32 / 4 + 8 * (d / 2 % 2); }
NOVA_HD constexpr int wg_accumulator_column(int thread, int d) { return d / 4 * 8 + thread % 4 * 2 + d % 2; }

// The descriptor of an operand block at shared-memory byte address `address` (16-byte aligned).
NOVA_HD constexpr std::uint64_t wg_descriptor(std::uint32_t address) {
  return (static_cast<std::uint64_t>(address >> 4) & 0x3FFF) |
         (static_cast<std::uint64_t>(kWgLeadingBytes >> 4) & 0x3FFF) << 16 |
         (static_cast<std::uint64_t>(kWgStrideBytes >> 4) & 0x3FFF) << 32;
}

// The descriptor of the operand block `bytes` (a multiple of 16) after the one `desc` names: the
// start address is the low field, and shared memory (< 256 KB) keeps it from carrying.
NOVA_HD constexpr std::uint64_t wg_descriptor_advance(std::uint64_t desc, unsigned bytes) { return desc + (bytes >> 4); }

// The byte address of element (row, k) of the block a descriptor names, as the tensor cores read it.
NOVA_HD constexpr std::uint32_t wg_descriptor_element(std::uint64_t desc, int row, int k) {
  const auto start = static_cast<std::uint32_t>(desc & 0x3FFF) << 4;
  const auto leading = static_cast<std::uint32_t>(desc >> 16 & 0x3FFF) << 4;
  const auto stride = static_cast<std::uint32_t>(desc >> 32 & 0x3FFF) << 4;
  return start + static_cast<std::uint32_t>(row / 8) * stride + static_cast<std::uint32_t>(k / 8) * leading +
         static_cast<std::uint32_t>(row % 8) * 16 + static_cast<std::uint32_t>(k % 8) * 2;
}

// ---------------------------------------------------------------------------------------------
// Device side: the products, the block's barriers and the bulk copy. NOVA_FUSED_WGMMA where the
// hardware has them (nvcc for sm_90a); the CPU emulation runs the same kernel through equivalents.

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define NOVA_FUSED_WGMMA 1
#endif

#if defined(NOVA_FUSED_WGMMA) || defined(NOVA_KERNEL_EMULATION)

// A block barrier in shared memory (mbarrier): `expected` arrivals and the bytes announced by
// wg_arrive_expect_bytes complete a phase. 16 bytes in every build, so that the shared-memory
// layout is the same on the GPU (which uses the first 8) and in the emulation.
struct alignas(16) WgBarrier {
  std::uint32_t words[4];
};

#ifdef NOVA_KERNEL_EMULATION
// words: [0] arrivals a phase expects, [1] arrivals still missing, [2] bytes still missing, [3] the
// phases completed.
inline std::uint32_t wg_shared_address(const void* p) {
  return static_cast<std::uint32_t>(static_cast<const char*>(p) - fused_shared_memory());
}
inline void wg_barrier_init(WgBarrier* b, int expected) {
  b->words[0] = b->words[1] = static_cast<std::uint32_t>(expected), b->words[2] = b->words[3] = 0;
}
inline void wg_barrier_complete_if_done(WgBarrier* b) {
  if (b->words[1] == 0 && b->words[2] == 0) b->words[1] = b->words[0], ++b->words[3];
}
inline void wg_arrive(WgBarrier* b) {
  --b->words[1];
  wg_barrier_complete_if_done(b);
}
inline void wg_arrive_expect_bytes(WgBarrier* b, int bytes) {
  b->words[2] += static_cast<std::uint32_t>(bytes);
  wg_arrive(b);
}
// Waits until the phase of parity `parity` is complete: other threads run meanwhile. A phase that
// never completes (a kernel's deadlock) ends the emulation instead of hanging it.
inline void wg_wait(WgBarrier* b, int parity) {
  const auto since = std::chrono::steady_clock::now();
  for (long spins = 0; (b->words[3] & 1) == static_cast<std::uint32_t>(parity); ++spins) {
    nova::emulation::check_deadlock(spins, since, "a barrier phase");
    __syncthreads();
  }
}
inline void wg_bulk_copy(void* to, const void* from, int bytes, WgBarrier* b) {
  std::memcpy(to, from, static_cast<std::size_t>(bytes));
  b->words[2] -= static_cast<std::uint32_t>(bytes);
  wg_barrier_complete_if_done(b);
}
inline void wg_bulk_store(void* to, const void* from, int bytes) { std::memcpy(to, from, static_cast<std::size_t>(bytes)); }
inline void wg_bulk_stores_read() {}
inline void wg_bulk_stores_done() {}
// A barrier of kThreads threads of the block (bar.sync kId, kThreads on the GPU).
template <int kId, int kThreads> inline void wg_named_sync() {
  static unsigned arrived = 0, generation = 0;
  const unsigned mine = generation;
  if (++arrived == kThreads) arrived = 0, ++generation;
  while (generation == mine) __syncthreads();
}
inline void wg_fence_operands() {}
inline void wgmma_fence() {}
inline void wgmma_commit() {}
template <int pending> inline void wgmma_wait() {}
template <int kRows, int kCols> inline void wg_fence_registers(float (&)[kRows][kCols]) {}
template <int registers> inline void wg_set_registers(bool) {}

// d = A B, or d += A B where `accumulate`, for the blocks A and B's descriptors name, as thread
// `thread` of the warpgroup holds D.
template <typename T, int kN>
inline void wgmma_m64k16(float (&d)[kN / 2], std::uint64_t a, std::uint64_t b, bool accumulate, int thread) {
  const char* shared = fused_shared_memory();
  for (int e = 0; e < kN / 2; ++e) {
    const int row = wg_accumulator_row(thread, e), column = wg_accumulator_column(thread, e);
    float sum = 0.0f;
    for (int k = 0; k < kWgDepth; ++k)
      sum += to_float(*reinterpret_cast<const T*>(shared + wg_descriptor_element(a, row, k))) *
             to_float(*reinterpret_cast<const T*>(shared + wg_descriptor_element(b, column, k)));
    d[e] = accumulate ? d[e] + sum : sum;
  }
}
#else
__device__ inline std::uint32_t wg_shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
__device__ inline void wg_barrier_init(WgBarrier* b, int expected) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(wg_shared_address(b)), "r"(expected));
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ inline void wg_arrive(WgBarrier* b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(wg_shared_address(b)) : "memory");
}
__device__ inline void wg_arrive_expect_bytes(WgBarrier* b, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(wg_shared_address(b)),
               "r"(bytes)
               : "memory");
}
__device__ inline void wg_wait(WgBarrier* b, int parity) {
  asm volatile(
      "{\n.reg .pred done;\nwait:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait;\n}\n" ::"r"(wg_shared_address(b)),
      "r"(parity)
      : "memory");
}
// `bytes` (a multiple of 16) from global memory into shared memory by the copy engine; the barrier's
// phase completes when they have arrived.
__device__ inline void wg_bulk_copy(void* to, const void* from, int bytes, WgBarrier* b) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                   wg_shared_address(to)),
               "l"(from), "r"(bytes), "r"(wg_shared_address(b))
               : "memory");
}
// `bytes` (a multiple of 16; both ends 16-byte aligned) from shared to global memory by the copy engine,
// in this thread's group of bulk stores.
__device__ inline void wg_bulk_store(void* to, const void* from, int bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n" ::"l"(to), "r"(wg_shared_address(from)),
               "r"(bytes)
               : "memory");
}
// Waits until the copy engine has read the shared memory of every bulk store this thread issued, which
// may then be written again (the stores into global memory go on).
__device__ inline void wg_bulk_stores_read() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
  asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}
// Waits until every bulk store this thread issued is complete in global memory.
__device__ inline void wg_bulk_stores_done() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }
// A barrier of kThreads threads of the block (kId > 0: __syncthreads is barrier 0).
template <int kId, int kThreads> __device__ inline void wg_named_sync() {
  asm volatile("bar.sync %0, %1;\n" ::"n"(kId), "n"(kThreads) : "memory");
}
// Ordinary stores to shared memory that the tensor cores or the copy engine read next.
__device__ inline void wg_fence_operands() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
__device__ inline void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ inline void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// Keeps the compiler from moving accesses of these accumulators across the point where it stands.
template <int kRows, int kCols> __device__ inline void wg_fence_registers(float (&d)[kRows][kCols]) {
#pragma unroll
  for (int r = 0; r < kRows; ++r)
#pragma unroll
    for (int c = 0; c < kCols; ++c) asm volatile("" : "+f"(d[r][c])::"memory");
}
template <int pending> __device__ inline void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(pending) : "memory");
}
// This warpgroup's registers a thread: raised for the consumer, lowered for the producers.
template <int registers> __device__ inline void wg_set_registers(bool raise) {
  if (raise) asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(registers));
  else asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(registers));
}

// d = A B, or d += A B where `accumulate` (wgmma's scale-d), 64 x kN in fp32, from the operand blocks
// that descriptors a and b name. The operand type and the shape are part of the instruction's name,
// and asm takes only a literal.
#define NOVA_WGMMA_N8(ab)                                                                                   \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"                                                 \
               "wgmma.mma_async.sync.aligned.m64n8k16.f32." ab "." ab " {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}\n" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                               \
               : "l"(a), "l"(b), "r"(static_cast<int>(accumulate)))
#define NOVA_WGMMA_N16(ab)                                                                                      \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"                                                     \
               "wgmma.mma_async.sync.aligned.m64n16k16.f32." ab "." ab                                          \
               " {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1, 0, 0;\n}\n"                                \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]) \
               : "l"(a), "l"(b), "r"(static_cast<int>(accumulate)))
template <typename T, int kN>
__device__ inline void wgmma_m64k16(float (&d)[kN / 2], std::uint64_t a, std::uint64_t b, bool accumulate, int) {
  static_assert(kN == 8 || kN == 16, "the fused kernel multiplies 8 or 16 tiles at a time");
  constexpr bool half = std::is_same_v<T, __half>;
  if constexpr (kN == 8) {
    if constexpr (half) NOVA_WGMMA_N8("f16");
    else NOVA_WGMMA_N8("bf16");
  } else {
    if constexpr (half) NOVA_WGMMA_N16("f16");
    else NOVA_WGMMA_N16("bf16");
  }
}
#undef NOVA_WGMMA_N8
#undef NOVA_WGMMA_N16
#endif

#endif  // NOVA_FUSED_WGMMA || NOVA_KERNEL_EMULATION

}  // namespace nova::kernels
