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
// The tensor-core input transform (fused_wgmma_kernels.hpp) also multiplies with A in registers (mma.m16n8k16's
// A fragment in each warp) and B "MN-major" with the 128-byte swizzle: each k one 128-byte row of 64
// elements, its 16-byte chunks permuted by the row's address bits 7-9 (as the copy engine's tensor copies
// write it), k-groups of 8 rows a stride apart; the hardware reads the swizzle from the address, so a
// k-step may start on any row (the matrix base offset stays 0; tools/device/tc_input_transform.cu checked
// this reading against FP64).
//
// Off sm_90a (the CPU emulation; a compile for any other target) wgmma_m64k16 is a per-thread
// product that reads the operands through the same descriptors, so the emulation tests check the
// descriptor and fragment arithmetic, not a copy of it; the register-A product assembles the
// warpgroup's fragments first, and the tensor copy swizzles as the copy engine does.
#pragma once

#include "nova/kernels/fused_kernels.hpp"
#include "nova/kernels/storage_bits.hpp"

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

// The descriptor of an operand block at shared-memory byte address `address` (16-byte aligned), its core
// matrices `leading` bytes apart along k and `stride` bytes apart along rows (multiples of 16; by default the
// layout above).
NOVA_HD constexpr std::uint64_t wg_descriptor(std::uint32_t address, unsigned leading = kWgLeadingBytes,
                                              unsigned stride = kWgStrideBytes) {
  return (static_cast<std::uint64_t>(address >> 4) & 0x3FFF) | (static_cast<std::uint64_t>(leading >> 4) & 0x3FFF) << 16 |
         (static_cast<std::uint64_t>(stride >> 4) & 0x3FFF) << 32;
}

// The descriptor of the operand block `bytes` (a multiple of 16) after the one `desc` names: the
// start address is the low field, and shared memory (< 256 KB) keeps it from carrying.
NOVA_HD constexpr std::uint64_t wg_descriptor_advance(std::uint64_t desc, unsigned bytes) { return desc + (bytes >> 4); }

// The byte address of element n (< 64) of the 128-byte swizzled row at shared-memory byte address `row`.
NOVA_HD constexpr std::uint32_t wg_swizzled(std::uint32_t row, int n) {
  return row + ((static_cast<std::uint32_t>(n) / 8) ^ (row >> 7 & 7)) * 16 + static_cast<std::uint32_t>(n % 8) * 2;
}
// The descriptor of an MN-major operand with the 128-byte swizzle at `address` (a row's), its k-groups of 8
// rows `stride` bytes apart.
NOVA_HD constexpr std::uint64_t wg_swizzled_descriptor(std::uint32_t address, unsigned stride) {
  return (static_cast<std::uint64_t>(address >> 4) & 0x3FFF) | std::uint64_t{1} << 16 |
         (static_cast<std::uint64_t>(stride >> 4) & 0x3FFF) << 32 | std::uint64_t{1} << 62;
}
// The byte address of element (k, n) of the operand such a descriptor names.
NOVA_HD constexpr std::uint32_t wg_swizzled_element(std::uint64_t desc, int k, int n) {
  const auto start = static_cast<std::uint32_t>(desc & 0x3FFF) << 4;
  const auto stride = static_cast<std::uint32_t>(desc >> 32 & 0x3FFF) << 4;
  return wg_swizzled(start + static_cast<std::uint32_t>(k / 8) * stride + static_cast<std::uint32_t>(k % 8) * 128, n);
}

// The byte address of element (row, k) of the block a descriptor names, as the tensor cores read it.
NOVA_HD constexpr std::uint32_t wg_descriptor_element(std::uint64_t desc, int row, int k) {
  const auto start = static_cast<std::uint32_t>(desc & 0x3FFF) << 4;
  const auto leading = static_cast<std::uint32_t>(desc >> 16 & 0x3FFF) << 4;
  const auto stride = static_cast<std::uint32_t>(desc >> 32 & 0x3FFF) << 4;
  return start + static_cast<std::uint32_t>(row / 8) * stride + static_cast<std::uint32_t>(k / 8) * leading +
         static_cast<std::uint32_t>(row % 8) * 16 + static_cast<std::uint32_t>(k % 8) * 2;
}

// Two values in the storage type as one 32-bit word, the first in the low half: a register A fragment's
// pair, or a pair of an accumulator fragment for wg_store_matrices_transposed.
template <typename T> __device__ inline std::uint32_t wg_pair_word(float lo, float hi) {
  static_assert(sizeof(T) == 2, "16-bit storage types only");
  alignas(4) T pair[2];
  store_pair(pair, lo, hi);
  std::uint32_t word;
  std::memcpy(&word, pair, sizeof word);
  return word;
}
// v in the 16-bit storage type T, rounded to nearest even as wg_pair_word rounds it, as its bits, and back: constant
// expressions, for tables made at compile time (the tensor-core input path's fragments).
template <typename T> constexpr std::uint16_t wg_storage_bits(float v) {
  static_assert(storage_of<T>() != Storage::f32, "16-bit storage types only");
  return storage_of<T>() == Storage::bf16 ? float_to_bf16_bits(v) : float_to_half_bits(v);
}
template <typename T> constexpr float wg_storage_value(std::uint16_t bits) {
  return storage_of<T>() == Storage::bf16 ? bf16_bits_to_float(bits) : half_bits_to_float(bits);
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
template <int kN> inline void wg_fence_registers(float (&)[kN]) {}
inline void wg_opaque(int&) {}
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

// What the emulation keeps in a tensor map: the tensor (dims and byte strides innermost first) and the
// box a copy takes, whose innermost extent is one 128-byte row.
struct WgEmulatedMap {
  const void* base;
  long long dims[4], strides[4];
  int box[4], element_bytes;
};
// The box at (c0, c1, c2, c3) into `to`, one swizzled 128-byte row a step of the outer three, zeros outside
// the tensor; then the bytes count on the barrier.
inline void wg_tensor_copy(void* to, const void* map, int c0, int c1, int c2, int c3, WgBarrier* b) {
  WgEmulatedMap m;
  std::memcpy(&m, map, sizeof m);
  const int origin[4] = {c0, c1, c2, c3};
  char* shared = fused_shared_memory();
  std::uint32_t row = wg_shared_address(to);
  int bytes = 0;
  for (int i3 = 0; i3 < m.box[3]; ++i3)
    for (int i2 = 0; i2 < m.box[2]; ++i2)
      for (int i1 = 0; i1 < m.box[1]; ++i1, row += 128, bytes += 128)
        for (int i0 = 0; i0 < m.box[0]; ++i0) {
          const int at[4] = {origin[0] + i0, origin[1] + i1, origin[2] + i2, origin[3] + i3};
          bool inside = true;
          long long offset = 0;
          for (int d = 0; d < 4; ++d) inside = inside && at[d] >= 0 && at[d] < m.dims[d], offset += at[d] * m.strides[d];
          char* element = shared + wg_swizzled(row, i0 * m.element_bytes / 2);
          if (inside) std::memcpy(element, static_cast<const char*>(m.base) + offset, static_cast<std::size_t>(m.element_bytes));
          else std::memset(element, 0, static_cast<std::size_t>(m.element_bytes));
        }
  b->words[2] -= static_cast<std::uint32_t>(bytes);
  wg_barrier_complete_if_done(b);
}
// The threads of one warp (32) or warpgroup (128) waiting for each other, as their collective instructions do.
template <int kThreads> struct WgArrivals {
  unsigned arrived = 0, generation = 0;
  void wait() {
    const unsigned mine = generation;
    if (++arrived == kThreads) arrived = 0, ++generation;
    while (generation == mine) __syncthreads();
  }
};
// The exchange of this thread's group of kThreads threads (a warp, a warpgroup) where a collective instruction's
// operands meet; one of each type a group of the block.
template <class Exchange, int kThreads> Exchange& wg_group_exchange() {
  static std::vector<Exchange> groups;
  if (groups.size() < (blockDim.x + kThreads - 1) / kThreads) groups.resize((blockDim.x + kThreads - 1) / kThreads);
  return groups[threadIdx.x / kThreads];
}
// d = A B (or += where `accumulate`), 64 x 64: A (64 x 16, fp16 or bf16) in registers as mma.m16n8k16's A
// fragment in each warp of the warpgroup, B through an MN-major swizzled descriptor. The warpgroup's
// fragments meet in an exchange, each thread then computes its accumulators.
struct WgFragmentExchange {
  float a[64][16];
  WgArrivals<128> arrivals;
};
template <typename T>
inline void wgmma_m64n64k16_ra(float (&d)[32], const std::uint32_t (&a)[4], std::uint64_t b, bool accumulate, int thread) {
  WgFragmentExchange& x = wg_group_exchange<WgFragmentExchange, 128>();
  const int warp = thread / 32, lane = thread % 32;
  for (int i = 0; i < 4; ++i) {
    T h[2];
    std::memcpy(h, &a[i], sizeof h);
    for (int e = 0; e < 2; ++e) x.a[warp * 16 + lane / 4 + 8 * (i % 2)][lane % 4 * 2 + e + 8 * (i / 2)] = to_float(h[e]);
  }
  x.arrivals.wait();
  const char* shared = fused_shared_memory();
  for (int e = 0; e < 32; ++e) {
    const int row = wg_accumulator_row(thread, e), column = wg_accumulator_column(thread, e);
    float sum = 0.0f;
    for (int k = 0; k < kWgDepth; ++k)
      sum += x.a[row][k] * to_float(*reinterpret_cast<const T*>(shared + wg_swizzled_element(b, k, column)));
    d[e] = accumulate ? d[e] + sum : sum;
  }
  x.arrivals.wait();
}
// stmatrix .trans, as the device's wg_store_matrices_transposed: the warp's words and addresses meet in an
// exchange, then each addressing lane writes its column.
template <int kCount> inline void wg_store_matrices_transposed(void* column, const std::uint32_t (&r)[kCount]) {
  struct Exchange {
    std::uint32_t words[32][4];
    char* columns[32];
    WgArrivals<32> arrivals;
  };
  Exchange& x = wg_group_exchange<Exchange, 32>();
  const int lane = static_cast<int>(threadIdx.x % 32);
  for (int i = 0; i < kCount; ++i) x.words[lane][i] = r[i];
  x.columns[lane] = static_cast<char*>(column);
  x.arrivals.wait();
  if (lane < 8 * kCount) {
    const int matrix = lane / 8, col = lane % 8;
    for (int row = 0; row < 8; ++row)
      std::memcpy(x.columns[lane] + 2 * row, reinterpret_cast<const char*>(&x.words[4 * row + col / 2][matrix]) + 2 * (col % 2), 2);
  }
  x.arrivals.wait();
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
template <int kN> __device__ inline void wg_fence_registers(float (&d)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
template <int kRows, int kCols> __device__ inline void wg_fence_registers(float (&d)[kRows][kCols]) {
#pragma unroll
  for (int r = 0; r < kRows; ++r) wg_fence_registers(d[r]);
}
// Makes `v` a value the compiler cannot see through here, so that what is computed from it is computed after this
// point and not hoisted out of an enclosing loop.
__device__ inline void wg_opaque(int& v) { asm volatile("" : "+r"(v)); }
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

// The kCount 8 x 8 matrices of 16-bit elements whose fragments the warp holds (register i: matrix i's row
// lane / 4, columns 2 (lane % 4) and + 1, as wg_pair_word packs them), stored transposed: lane l names where
// column l % 8 of matrix l / 8 goes, its 8 elements one 16-byte aligned run (stmatrix .trans).
template <int kCount> __device__ inline void wg_store_matrices_transposed(void* column, const std::uint32_t (&r)[kCount]) {
  static_assert(kCount == 2 || kCount == 4, "the consumer's stagings store two or four matrices at a time");
  if constexpr (kCount == 4)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(wg_shared_address(column)),
                 "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
                 : "memory");
  else
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};\n" ::"r"(wg_shared_address(column)), "r"(r[0]),
                 "r"(r[1])
                 : "memory");
}
// The box of tensor map `map` (a CUtensorMap in the kernel's parameters) at coordinates (c0, c1, c2, c3),
// innermost first, into `to` by the copy engine: zeros outside the tensor, rows swizzled as the map says;
// the barrier's phase completes with its bytes.
__device__ inline void wg_tensor_copy(void* to, const void* map, int c0, int c1, int c2, int c3, WgBarrier* b) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(
          wg_shared_address(to)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(wg_shared_address(b))
      : "memory");
}
// d = A B (or += where `accumulate`), 64 x 64 fp32: A (64 x 16, fp16 or bf16) in registers, B (16 x 64)
// through an MN-major swizzled descriptor (imm-trans-b 1).
#define NOVA_WGMMA_N64_RA(ab)                                                                                   \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"                                                    \
               "wgmma.mma_async.sync.aligned.m64n64k16.f32." ab "." ab " "                                       \
               "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                         \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "               \
               "{%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"                                                    \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),        \
                 "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),      \
                 "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),      \
                 "+f"(d[29]), "+f"(d[30]), "+f"(d[31])                                                           \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(static_cast<int>(accumulate)))
template <typename T>
__device__ inline void wgmma_m64n64k16_ra(float (&d)[32], const std::uint32_t (&a)[4], std::uint64_t b, bool accumulate, int) {
  static_assert(sizeof(T) == 2, "16-bit storage types only");
  if constexpr (std::is_same_v<T, __half>) NOVA_WGMMA_N64_RA("f16");
  else NOVA_WGMMA_N64_RA("bf16");
}
#undef NOVA_WGMMA_N64_RA
#endif

#endif  // NOVA_FUSED_WGMMA || NOVA_KERNEL_EMULATION

}  // namespace nova::kernels
