// A floor for the wgmma kernel's consumer (fused_wgmma_kernels.hpp): its loop with nothing else in the block. A
// stage is the n = 6 products of one domain row and one channel step, wgmma m64 x N x 16 (N = the tile group's 8 or
// 16 tiles) from U and V blocks in shared memory through the library's descriptors, committed as one group and
// followed by wgmma.wait_group 1 (the stage before is done, this one runs on); a row is 4 such stages (C = 64) into
// one of two accumulator sets, as the consumer runs them. Each line adds what the consumer does besides:
//   products   nothing (U's three stages stay in shared memory)
//   sync       the consumer's named barrier of its 128 threads a stage (wg_consumer_sync, before a U refill)
//   serial     wgmma.wait_group 0 instead of 1: each stage waits for its own products (no overlap)
//   fold       sync, and each row folded into the tile group's outputs by the library's fused_wg_fold (f4x3_standard's
//              A^T) while the next row's first stage runs, as the consumer does
//   ring S     sync, and U streamed as the kernel streams it: a ring of S stages of 12 KB, each refilled by the copy
//              engine (cp.async.bulk, from an L2-resident filter of C = K = 64) S - 1 stages ahead and waited for by
//              its barrier; "+ fold" folds too: the consumer's whole loop but for the V barriers and the epilogue;
//              "fence first": wgmma.fence before the barrier's wait, not after (ptxas then injects a warpgroup.arrive
//              after the wait's loop, its note C7519); "no products": U streamed alone; "2 (3, 6) copies": each
//              stage's 12 KB as two (three, six) bulk copies of 6 (4, 2) KB; "by cp.async": each thread's six 16-byte cp.async
//              (LDGSTS, through L2 only) instead, arriving at the stage's barrier when they complete; "by both": the
//              first 6 KB by one bulk copy, the second by cp.async, at once; "+ N-cycle wait": each thread waits N
//              cycles where the fold would be, in its place (the fold's time without its work)
//   issuer     the ring's copies issued by a fifth warp (SMSP 0, beside consumer warp 0), each once the consumer has
//              freed its slot (an empty barrier), not by the consumer's thread 0; "sleep": it polls that barrier with
//              a sleep between polls; prints the consumer's wait for U and the issuer's for a slot and in its issue
//   beside     U static (no ring); a fifth warp meanwhile streams copies of 12 KB into 6 slots of its own (copies
//              beside), or one warp on each SMSP runs independent FMAs until the consumer is done (FMA warps)
//   tc fold    the fold on the tensor cores in place of fused_wg_fold: each row of M rounded to fp16 into shared
//              memory as its next row's first stage runs (a thread's 6 positions of one (channel, tile), and 2 zeros,
//              one 16-byte store), and each pair of rows folded by 16 wgmma m64n16k16, one a tile: A the tile's M (64
//              channels x 16: the pair's two rows of 8 positions, K-major, the rows' core matrices 16 KB apart), B the
//              pair's columns of A^T (x) A^T (16 outputs x 16), D the tile's 64 x 16 outputs. Checked first against
//              an FP64 fold of the same M (one block, one group, random operands; --check alone runs only that);
//              "by rows": each row folded alone as it is stored (16 wgmmas a row, k 8-15 a zero block and zero table
//              rows), so that one row's buffer suffices; "merged": a pair's wgmmas committed with the next stage's
//              products; "stores only", "products only", "no fence": the tc fold without its wgmmas, without its
//              stores, without its proxy fence (wrong outputs: what each part costs). `--fold` runs the fold's
//              lines alone (docs/performance.md, "The consumer's fold on the tensor cores")
//   two consumers  two warpgroups of N = 8 tiles each (16 in all), each on a V of its own, in step on one U ring: a
//              barrier of both a stage before the refill, as the consumer's barrier would become (`--consumers` runs
//              these beside one consumer of 16; the registers a thread that ptxas gave them are printed)
// 132 blocks of one warpgroup (for the ring, also fewer: the bandwidth of one SM's copies when the other SMs copy
// less or nothing), each 200 tile groups of 24 stages, timed by clock64 in each block (the slowest taken).
// Prints cycles a stage, the rate in dense TFLOP/s, and what that rate alone would take for VGG-16 64@224 NHWC batch
// 32 (6,272 groups of 16 tiles, or 12,544 of 8, over the SMs). The wgmma kernel there takes about 310 us
// (docs/performance.md, "What the wgmma kernel's consumer alone takes").
//   nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -I. -Iruntime/kernels/include -Iruntime/include \
//     tools/device/wgmma_stage_rate.cu -o wgmma_stage_rate && ./wgmma_stage_rate
#include "check.hpp"

#include "generated/f4x3_standard_transforms.hpp"
#include "nova/kernels/fused_wgmma_kernels.hpp"

#include <cstdint>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace wg = nova::kernels;

constexpr int kN6 = 6, kSteps = 4, kRows = 6, kGroupStages = kRows * kSteps, kGroups = 200;
constexpr int kUBlock = wg::kWgRows * wg::kWgDepth;  // elements of one 64 x 16 U block
constexpr int kUStage = kN6 * kUBlock;                // one stage: the 6 blocks of a (row, channel step)

// What a line measures (the modes above): N, the wait after each commit, the barrier, the fold, and U's ring (0:
// three static stages).
struct Plan {
  int n = 16;
  bool serial = false, sync = false, fold = false;
  int ring = 0;
  bool fence_first = false;  // wgmma.fence before the U barrier's wait (ptxas then injects warpgroup.arrive: C7519)
  bool products = true;       // false: U streamed through the ring alone
  int copies = 1;             // bulk copies a stage (its bytes in equal parts, one barrier)
  bool lsu = false;           // the ring refilled by every thread's 16-byte cp.async (LDGSTS) instead of the copy engine
  bool both = false;          // half of each stage by the copy engine, half by cp.async, at once
  int spin = 0;               // cycles each thread waits where the fold would be (in place of it)
  bool issuer = false;        // the ring's copies issued by a fifth warp once the consumer frees a slot, not by its thread 0
  int issuer_sleep = 0;       // the issuer polls its slot's barrier with a sleep of this many ns between polls
  bool background = false;    // U static, and a fifth warp streams 12 KB copies into 6 slots of its own meanwhile
  int ffma_warps = 0;         // warps (4: one an SMSP) beside the consumer running independent FMAs until it is done
  int ffma_yield = 0;         // > 0: those warps sleep (__nanosleep) this many ns after every 8 steps of 16 FMAs
  bool tc_fold = false;       // the fold on the tensor cores (N = 16 only)
  bool by_rows = false;       // the tc fold a row at a time, not a pair
  bool fold_stores = true;    // the tc fold's parts, each of which can be left out (wrong outputs): the rows' stores,
  bool fold_fence = true;     // their proxy fence,
  bool fold_products = true;  // the fold's wgmmas
  bool fold_merged = false;   // a pair's wgmmas committed with the next stage's products, not as a group of their own
  bool check = false;         // one group on random operands; M and the tc fold's outputs into `sink`
  int consumers = 1;          // 2: two consumer warpgroups, each N tiles of its own V, in step on one U ring (one
                              // barrier of both a stage), the block's registers shared by all its threads (65536 / threads)
};
template <int kN> constexpr int kVBlock = kN * wg::kWgDepth;  // one (step, position) V block, no skew (the FP path's)
template <int kN> constexpr int kVBytes = kSteps * kRows * kN6 * kVBlock<kN> * 2;
NOVA_HD constexpr int u_stages(const Plan& p) { return p.ring > 0 ? p.ring : 3; }
constexpr int kHeader = 256, kBackgroundSlots = 6;
// The tc fold: a row of M (16 tiles x 8 channel groups of one core matrix: 8 channels x 8 positions; tiles 16 bytes
// more apart than their 1 KB, so that the 4 tiles of a quarter warp's 16-byte stores meet 4 different groups of banks),
// the tables (wg_operand_offset order, 16 outputs x 16: the 3 pairs', then the 6 rows') and a zero block (8 core
// matrices).
constexpr int kFoldTileBytes = 8 * wg::kWgCoreBytes + 16, kFoldRowBytes = 16 * kFoldTileBytes, kFoldTableBytes = 16 * wg::kWgDepth * 2, kFoldPairs = kRows / 2;
constexpr int kFoldTables = kFoldPairs + kRows, kFoldZeroBytes = 8 * wg::kWgCoreBytes;
constexpr int kFoldBytes = kRows * kFoldRowBytes + kFoldTables * kFoldTableBytes + kFoldZeroBytes;
template <int kN> NOVA_HD constexpr int shared_bytes(const Plan& p) {
  return kHeader + u_stages(p) * kUStage * 2 + kVBytes<kN> + (p.background ? kBackgroundSlots * kUStage * 2 : 0) +
         (p.tc_fold ? kFoldBytes : 0) + (p.consumers - 1) * kVBytes<kN>;  // the second consumer's V last
}
// What the check writes into `sink`: M (row, position, channel, tile) in fp32, then the outputs (tile, channel, output).
constexpr int kCheckM = kRows * kN6 * wg::kWgRows * 16, kCheckY = 16 * wg::kWgRows * 16;
// A deterministic value in [-1, 1) for index i (the check's operands).
NOVA_HD inline float noise(unsigned i) {
  i = (i ^ 61u) ^ (i >> 16), i *= 9u, i ^= i >> 4, i *= 0x27d4eb2du, i ^= i >> 15;
  return static_cast<float>(i & 0xFFFF) / 32768.0f - 1.0f;
}

#if defined(NOVA_FUSED_WGMMA)
// Whether the barrier's phase of this parity has completed, without waiting.
__device__ inline bool wg_test(wg::WgBarrier* b, int parity) {
  unsigned done;
  asm volatile("{\n.reg .pred p;\nmbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
               : "=r"(done)
               : "r"(wg::wg_shared_address(b)), "r"(parity)
               : "memory");
  return done != 0;
}
#endif

// The body exists in the sm_90a pass only (the library's wgmma primitives, NOVA_FUSED_WGMMA); the host pass sees
// the kernel's declaration.
template <int kN, Plan kPlan>
__global__ void __launch_bounds__(kPlan.consumers == 1 ? 256 : 128 * kPlan.consumers + 32 * kPlan.ffma_warps, 1) stages(const __half* filter, long long* cycles, float* sink) {
#if defined(NOVA_FUSED_WGMMA)
  constexpr int kStages = u_stages(kPlan);
  extern __shared__ __align__(128) char shared[];
  auto* full = reinterpret_cast<wg::WgBarrier*>(shared);
  auto* empty = full + 8;
  auto* background = full + 16;
  volatile int* done = reinterpret_cast<volatile int*>(shared + 200);
  auto* u = reinterpret_cast<__half*>(shared + kHeader);
  auto* v = u + kStages * kUStage;
  // The second consumer's V, last in the shared memory (shared_bytes).
  __half* const second_v = reinterpret_cast<__half*>(shared + shared_bytes<kN>(kPlan) - kVBytes<kN>);
  for (int c = 0; c < kPlan.consumers; ++c)
    for (int i = threadIdx.x; i < kVBytes<kN> / 2; i += blockDim.x)
      (c == 0 ? v : second_v)[i] = __float2half(kPlan.check ? noise(i) : 0.25f * (i & 3));
  for (int i = threadIdx.x; i < kStages * kUStage; i += blockDim.x) u[i] = __float2half(kPlan.check ? 0.25f * noise(i + 99991u) : 0.5f);
  using Transform = nova::generated::f4x3_standard::Transform;
  static_assert(!kPlan.tc_fold || (kN == 16 && Transform::m == 4 && Transform::n == kN6), "the tc fold: F(4,3), 16 tiles");
  auto* fold_rows = reinterpret_cast<__half*>(reinterpret_cast<char*>(v) + kVBytes<kN>);
  auto* fold_tables = reinterpret_cast<__half*>(reinterpret_cast<char*>(fold_rows) + kRows * kFoldRowBytes);
  auto* fold_zeros = reinterpret_cast<__half*>(reinterpret_cast<char*>(fold_tables) + kFoldTables * kFoldTableBytes);
  if constexpr (kPlan.tc_fold) {
    // Pair q's table, element (output o = (r, s), k = 8 h + j): A^T[r][2 q + h] A^T[s][j], zero at j = 6, 7; row i's
    // (table kFoldPairs + i): A^T[r][i] A^T[s][j] at k = j < 6, else zero.
    for (int e = threadIdx.x; e < kFoldTables * 16 * wg::kWgDepth; e += blockDim.x) {
      const int q = e / 256, o = e / 16 % 16, k = e % 16, i = q < kFoldPairs ? 2 * q + k / 8 : q - kFoldPairs, j = k % 8;
      float unit_i[kN6] = {}, unit_j[kN6] = {}, col_i[4], col_j[4];
      float value = 0.0f;
      if (j < kN6 && (q < kFoldPairs || k < 8)) {
        unit_i[i] = 1.0f, unit_j[j] = 1.0f;
        Transform::output_1d(unit_i, 1, col_i, 1);
        Transform::output_1d(unit_j, 1, col_j, 1);
        value = col_i[o / 4] * col_j[o % 4];
      }
      fold_tables[q * 256 + wg::wg_operand_offset(o, k)] = __float2half(value);
    }
    for (int e = threadIdx.x; e < kFoldZeroBytes / 2; e += blockDim.x) fold_zeros[e] = __float2half(0.0f);
  }
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) wg::wg_barrier_init(&full[s], kPlan.lsu ? 128 : kPlan.both ? 129 : 1), wg::wg_barrier_init(&empty[s], 1);
    for (int s = 0; s < kBackgroundSlots; ++s) wg::wg_barrier_init(&background[s], 1);
    *done = 0;
  }
  wg::wg_fence_operands();
  __syncthreads();
  const int thread = static_cast<int>(threadIdx.x);
  constexpr unsigned kIssuedBytes = kUStage * 2;
  constexpr int kConsumerThreads = 128 * kPlan.consumers;
  if (thread >= kConsumerThreads && kPlan.ffma_warps > 0) {  // the FMA warps: as busy as their warp scheduler lets them be
    float acc[16];
    for (int i = 0; i < 16; ++i) acc[i] = static_cast<float>(thread + i);
    long long steps = 0;
    while (!*done) {
#pragma unroll 1
      for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int i = 0; i < 16; ++i) acc[i] = acc[i] * 0.999f + 0.25f;
      steps += 8;
      if constexpr (kPlan.ffma_yield > 0) __nanosleep(kPlan.ffma_yield);
    }
    float total = 0;
    for (float x : acc) total += x;
    if (total == 12345.0f) sink[thread % 128] = total;
    if (thread == kConsumerThreads) cycles[2 * gridDim.x + blockIdx.x] = steps;
    return;
  }
  if (thread >= kConsumerThreads) {  // the issuer (its own warp): stage f into slot f % kStages once the consumer freed it
    if (kPlan.issuer && thread == 128) {
      long long slot_wait = 0, issuing = 0;  // the issuer's cycles waiting for a free slot, and issuing
      for (int f = 0; f < kGroups * kGroupStages; ++f) {
        const long long t0 = clock64();
        if (f >= kStages - 1) {
          const int parity = ((f - (kStages - 1)) / kStages) & 1;
          if constexpr (kPlan.issuer_sleep > 0)
            while (!wg_test(&empty[f % kStages], parity)) __nanosleep(kPlan.issuer_sleep);
          else
            wg::wg_wait(&empty[f % kStages], parity);
        }
        const long long t1 = clock64();
        wg::wg_arrive_expect_bytes(&full[f % kStages], kIssuedBytes);
        wg::wg_bulk_copy(u + (f % kStages) * kUStage, filter + static_cast<long long>(f % kGroupStages) * kUStage, kIssuedBytes,
                         &full[f % kStages]);
        slot_wait += t1 - t0, issuing += clock64() - t1;
      }
      cycles[2 * gridDim.x + blockIdx.x] = slot_wait, cycles[3 * gridDim.x + blockIdx.x] = issuing;
    }
    if (kPlan.background && thread == 128) {
      char* slots = reinterpret_cast<char*>(v + kVBytes<kN> / 2);
      int f = 0;
      for (; !*done; ++f) {
        const int s = f % kBackgroundSlots;
        if (f >= kBackgroundSlots) wg::wg_wait(&background[s], (f / kBackgroundSlots - 1) & 1);
        wg::wg_arrive_expect_bytes(&background[s], kIssuedBytes);
        wg::wg_bulk_copy(slots + s * kIssuedBytes, filter + static_cast<long long>(f % kGroupStages) * kUStage, kIssuedBytes, &background[s]);
      }
      for (int j = f < kBackgroundSlots ? 0 : f - kBackgroundSlots; j < f; ++j)
        wg::wg_wait(&background[j % kBackgroundSlots], (j / kBackgroundSlots) & 1);
      cycles[2 * gridDim.x + blockIdx.x] = f;
    }
    return;
  }
  const std::uint64_t u_desc = wg::wg_descriptor(wg::wg_shared_address(u)),
                      v_desc = wg::wg_descriptor(wg::wg_shared_address(thread >= 128 ? second_v : v));
  constexpr unsigned kUBlockBytes = kUBlock * 2, kUStageBytes = kUStage * 2, kVStepBytes = kVBlock<kN> * 2;
  float rows[2][kN6][kN / 2] = {};
  float out[16][kN / 2] = {};  // the FP fold's outputs (output, element), or the tc fold's (tile, element)
  // Row i of M, rounded to fp16, into its place (and, checking, into `sink` in fp32).
  const auto store_row = [&](int i) {
    if constexpr (kPlan.fold_stores) {
#pragma unroll
      for (int e = 0; e < kN / 2; ++e) {
        const int channel = wg::wg_accumulator_row(thread, e), tile = wg::wg_accumulator_column(thread, e);
        const float(&m)[kN6][kN / 2] = rows[i % 2];
        const uint4 words = {wg::wg_pair_word<__half>(m[0][e], m[1][e]), wg::wg_pair_word<__half>(m[2][e], m[3][e]),
                             wg::wg_pair_word<__half>(m[4][e], m[5][e]), 0u};
        *reinterpret_cast<uint4*>(reinterpret_cast<char*>(fold_rows) + i * kFoldRowBytes + tile * kFoldTileBytes +
                                  channel / 8 * wg::kWgCoreBytes + channel % 8 * 16) = words;
        if constexpr (kPlan.check)
          for (int j = 0; j < kN6; ++j) sink[((i * kN6 + j) * wg::kWgRows + channel) * 16 + tile] = m[j][e];
      }
    }
    if constexpr (kPlan.fold_fence) wg::wg_fence_operands();
  };
  // Rows 2 q and 2 q + 1 folded into the outputs, a wgmma a tile (after every thread's store_row of both).
  const auto fold_pair = [&](int q) {
    if constexpr (kPlan.tc_fold) {
      wg::wg_named_sync<1, 128>();
      wg::wgmma_fence();
      const std::uint32_t rows_at = wg::wg_shared_address(fold_rows) + 2 * q * kFoldRowBytes;
      const std::uint64_t table = wg::wg_descriptor(wg::wg_shared_address(fold_tables) + q * kFoldTableBytes);
#pragma unroll
      for (int t = 0; t < 16; ++t)
        if constexpr (kPlan.fold_products)
          wg::wgmma_m64k16<__half, 16>(out[t], wg::wg_descriptor(rows_at + t * kFoldTileBytes, kFoldRowBytes, wg::kWgCoreBytes), table,
                                       q > 0, thread);
      if (!kPlan.fold_merged || q == kFoldPairs - 1) wg::wgmma_commit();
    }
  };
  // Row i alone folded into the outputs (after every thread's store_row of it): k 8-15 read the zero block.
  const auto fold_row = [&](int i) {
    if constexpr (kPlan.tc_fold) {
      wg::wg_named_sync<1, 128>();
      wg::wgmma_fence();
      const std::uint32_t row_at = wg::wg_shared_address(fold_rows) + i * kFoldRowBytes, zeros = wg::wg_shared_address(fold_zeros);
      const std::uint64_t table = wg::wg_descriptor(wg::wg_shared_address(fold_tables) + (kFoldPairs + i) * kFoldTableBytes);
#pragma unroll
      for (int t = 0; t < 16; ++t) {
        const std::uint32_t at = row_at + t * kFoldTileBytes;
        wg::wgmma_m64k16<__half, 16>(out[t], wg::wg_descriptor(at, zeros - at, wg::kWgCoreBytes), table, i > 0, thread);
      }
      wg::wgmma_commit();
    }
  };
  // The ring as the kernel's consumer keeps it: the next stage to fetch (its filter stage and slot), the next to multiply.
  int fetch_from = 0, fetch_slot = 0, stage = 0, phase = 0, fetched = 0;
  long long u_wait = 0;  // the consumer's cycles waiting for U
  const auto fetch_next = [&] {
    if ((kPlan.lsu || kPlan.both) && fetched++ < kGroups * kGroupStages) {
      // 96 bytes a thread (48 with `both`, the stage's second half): 16-byte runs 2 KB apart; the barrier's phase
      // completes when all 128 threads' have arrived (and, with `both`, thread 0's bulk copy of the first half).
      constexpr int kRuns = kUStage * 2 / 2048 / (kPlan.both ? 2 : 1), kFirst = kPlan.both ? static_cast<int>(kUStageBytes) / 2 : 0;
      if (kPlan.both && thread == 0) {
        wg::wg_arrive_expect_bytes(&full[fetch_slot], kUStageBytes / 2);
        wg::wg_bulk_copy(u + fetch_slot * kUStage, filter + static_cast<long long>(fetch_from) * kUStage, kUStageBytes / 2, &full[fetch_slot]);
      }
      const std::uint32_t to = wg::wg_shared_address(u + fetch_slot * kUStage) + kFirst + thread * 16;
      const char* from = reinterpret_cast<const char*>(filter + static_cast<long long>(fetch_from) * kUStage) + kFirst + thread * 16;
#pragma unroll
      for (int c = 0; c < kRuns; ++c)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to + c * 2048), "l"(from + c * 2048) : "memory");
      asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(wg::wg_shared_address(&full[fetch_slot])) : "memory");
    } else if (kPlan.issuer) {
      if (thread == 0 && fetched++ >= kStages - 1 && fetched <= kGroups * kGroupStages) wg::wg_arrive(&empty[fetch_slot]);
    } else if (kPlan.ring > 0 && !kPlan.lsu && thread == 0 && fetched++ < kGroups * kGroupStages) {  // none beyond the last stage
      wg::wg_arrive_expect_bytes(&full[fetch_slot], kUStageBytes);
      constexpr int kPart = kUStage / kPlan.copies;
      for (int c = 0; c < kPlan.copies; ++c)
        wg::wg_bulk_copy(u + fetch_slot * kUStage + c * kPart, filter + static_cast<long long>(fetch_from) * kUStage + c * kPart, kPart * 2,
                         &full[fetch_slot]);
    }
    fetch_from = fetch_from + 1 == kGroupStages ? 0 : fetch_from + 1;
    fetch_slot = fetch_slot + 1 == kStages ? 0 : fetch_slot + 1;
  };
  if (kPlan.ring > 0)
    for (int f = 0; f < kStages - 1; ++f) fetch_next();
  const auto multiply = [&](int i, int step) {
    if constexpr (kPlan.fence_first) wg::wgmma_fence();
    if (kPlan.ring > 0) {
      const long long t0 = clock64();
      wg::wg_wait(&full[stage], phase);
      u_wait += clock64() - t0;
    }
    if constexpr (kPlan.lsu || kPlan.both) wg::wg_fence_operands();  // cp.async wrote the stage through the generic proxy
    if constexpr (!kPlan.fence_first) wg::wgmma_fence();
    const std::uint64_t us = wg::wg_descriptor_advance(u_desc, static_cast<unsigned>(stage) * kUStageBytes),
                        vs = wg::wg_descriptor_advance(v_desc, static_cast<unsigned>(step * kN6 * kN6 + i * kN6) * kVStepBytes);
    if constexpr (kPlan.products)
#pragma unroll
      for (int j = 0; j < kN6; ++j)
        wg::wgmma_m64k16<__half, kN>(rows[i % 2][j], wg::wg_descriptor_advance(us, j * kUBlockBytes),
                                     wg::wg_descriptor_advance(vs, static_cast<unsigned>(j) * kVStepBytes), step > 0, thread % 128);
    wg::wgmma_commit();
    if constexpr (kPlan.serial) wg::wgmma_wait<0>();
    else wg::wgmma_wait<1>();
    if constexpr (kPlan.sync) wg::wg_named_sync<1, kConsumerThreads>();
    fetch_next();
    if (++stage == kStages) stage = 0, phase ^= 1;
  };
  const long long start = clock64();
  constexpr int kRunGroups = kPlan.check ? 1 : kGroups;
#pragma unroll 1
  for (int g = 0; g < kRunGroups; ++g) {
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
      multiply(i, 0);
      if constexpr (kPlan.tc_fold)
        if (i > 0) {
          store_row(i - 1);
          if (kPlan.by_rows) fold_row(i - 1);
          else if (i % 2 == 0) fold_pair(i / 2 - 1);
        }
      if constexpr (kPlan.spin > 0)
        if (i > 0)
          for (const long long t0 = clock64(); clock64() - t0 < kPlan.spin;) {
          }
      if constexpr (kPlan.fold)
        if (i > 0) wg::fused_wg_fold_beside_products<Transform>(rows[(i - 1) % 2], i - 1, out);
#pragma unroll 1
      for (int step = 1; step < kSteps; ++step) {
        multiply(i, step);
      }
    }
    if constexpr (kPlan.fold) {
      wg::wgmma_wait<0>();
      wg::fused_wg_fold<Transform>(rows[(kRows - 1) % 2], kRows - 1, out);
    }
    if constexpr (kPlan.tc_fold) {  // the last pair, and the outputs complete (where the epilogue would read them)
      wg::wgmma_wait<0>();
      store_row(kRows - 1);
      if (kPlan.by_rows) fold_row(kRows - 1);
      else fold_pair(kFoldPairs - 1);
      wg::wgmma_wait<0>();
    }
  }
  if constexpr (kPlan.check)
#pragma unroll
    for (int t = 0; t < 16; ++t)
#pragma unroll
      for (int d = 0; d < 8; ++d)
        sink[kCheckM + (t * wg::kWgRows + wg::wg_accumulator_row(thread, d)) * 16 + wg::wg_accumulator_column(thread, d)] = out[t][d];
  wg::wgmma_wait<0>();
  const long long elapsed = clock64() - start;
  if (thread == 0) *done = 1;
  float total = 0;
  for (auto& set : rows)
    for (auto& row : set)
      for (float x : row) total += x;
  for (auto& pixel : out)
    for (float x : pixel) total += x;
  if (!kPlan.check && total == 12345.0f) sink[thread] = total;  // keeps the products
  if (thread == 0) cycles[blockIdx.x] = elapsed, cycles[gridDim.x + blockIdx.x] = u_wait;
#else
  (void)filter, (void)cycles, (void)sink;
#endif
}

// `blocks` of the device's `sms` (fewer: what one SM's copies get where the others do not copy).
template <int kN, Plan kPlan>
void measure(const char* mode, int sms, double clock_ghz, const __half* filter, long long* cycles_d, float* sink, int blocks = 0) {
  if (blocks == 0) blocks = sms;
  auto kernel = stages<kN, kPlan>;
  constexpr int kBytes = shared_bytes<kN>(kPlan);
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes));
  for (int run = 0; run < 2; ++run) {  // the first warms up
    const int consumer_threads = 128 * kPlan.consumers;
    kernel<<<blocks, kPlan.ffma_warps > 0 ? consumer_threads + 32 * kPlan.ffma_warps : kPlan.issuer || kPlan.background ? 160 : consumer_threads,
             kBytes>>>(filter, cycles_d, sink);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
  }
  std::vector<long long> record(4 * static_cast<size_t>(blocks));
  CHECK(cudaMemcpy(record.data(), cycles_d, sizeof(long long) * record.size(), cudaMemcpyDeviceToHost));
  const auto slowest = std::max_element(record.begin(), record.begin() + blocks);
  const long long most = *slowest;
  // The slowest block's waits, a stage: the consumer's for U; the issuer's for a free slot and in its copies' issue.
  const auto per_stage_of = [&](int part) { return static_cast<double>(slowest[part * blocks]) / (kGroups * kGroupStages); };
  const double per_stage = static_cast<double>(most) / (kGroups * kGroupStages);
  const double flop_per_stage = 2.0 * kN6 * wg::kWgRows * kN * kPlan.consumers * wg::kWgDepth;
  const double tflops = flop_per_stage * sms * clock_ghz * 1e9 / per_stage / 1e12;
  const double groups_64x224 = 32.0 * 56 * 56 / (kN * kPlan.consumers);  // VGG-16 64@224 b32, F(4,3)
  const double us_64x224 = groups_64x224 / sms * kGroupStages * per_stage / (clock_ghz * 1e3);
  if (blocks < sms) {
    std::printf("N %2d  %-37s %8.1f cycles a stage on %3d SMs: U at %5.1f bytes a cycle an SM\n", kN, mode, per_stage, blocks,
                kUStage * 2 / per_stage);
    return;
  }
  std::printf("N %2d  %-37s %8.1f cycles a stage %8.1f TFLOP/s   VGG-16 64@224 b32 at this rate %6.1f us", kN, mode, per_stage,
              tflops, us_64x224);
  if (kPlan.ring > 0) std::printf("   U at %5.1f bytes a cycle an SM", kUStage * 2 / per_stage);
  if (kPlan.issuer)
    std::printf("; the consumer waits for U %5.1f, the issuer for a slot %5.1f and issuing %5.1f cycles a stage", per_stage_of(1),
                per_stage_of(2), per_stage_of(3));
  if (kPlan.ffma_warps > 0) std::printf("   beside it, each FMA warp issues %4.2f FMAs a cycle (alone 0.5)", per_stage_of(2) * 16 / per_stage);
  if (kPlan.consumers > 1) {
    cudaFuncAttributes attributes{};
    CHECK(cudaFuncGetAttributes(&attributes, kernel));
    std::printf("   %d registers a thread, %zu bytes of local memory", attributes.numRegs, attributes.localSizeBytes);
  }
  if (kPlan.background) std::printf("   beside it, copies at %5.1f bytes a cycle", per_stage_of(2) * kUStage * 2 / per_stage);
  std::printf("\n");
}

// The tc fold against an FP64 fold of the same M (the kernel's fp32 accumulators): the largest difference over the
// largest output, which fp16's rounding of M keeps at 2.5e-4 (measured) and a wrong layout makes O(1) (0.96 with a
// descriptor's row offset 16 bytes off). Returns whether it passes (at most 1e-2, every output finite).
template <Plan kPlan>
bool check_tc_fold(const __half* filter, long long* cycles_d) {
  auto kernel = stages<16, kPlan>;
  constexpr int kBytes = shared_bytes<16>(kPlan);
  float* data = nullptr;
  CHECK(cudaMalloc(&data, sizeof(float) * (kCheckM + kCheckY)));
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes));
  kernel<<<1, 128, kBytes>>>(filter, cycles_d, data);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> host(kCheckM + kCheckY);
  CHECK(cudaMemcpy(host.data(), data, sizeof(float) * host.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(data));
  using Transform = nova::generated::f4x3_standard::Transform;
  double largest = 0.0, worst = 0.0;
  bool finite = true;
  for (int tile = 0; tile < 16; ++tile)
    for (int channel = 0; channel < wg::kWgRows; ++channel) {
      double mm[kN6 * kN6], y[16];
      for (int p = 0; p < kN6 * kN6; ++p) mm[p] = host[(p * wg::kWgRows + channel) * 16 + tile];
      Transform::output_2d(mm, y);
      for (int o = 0; o < 16; ++o) {
        const double got = host[kCheckM + (tile * wg::kWgRows + channel) * 16 + o];
        finite = finite && std::isfinite(got);
        largest = std::max(largest, std::abs(y[o])), worst = std::max(worst, std::abs(got - y[o]));
      }
    }
  const bool pass = finite && worst <= 1e-2 * largest;
  std::printf("tc fold%s against an FP64 fold of the same M: largest difference %.3g of the largest output %.3g (%.2e)%s: %s\n",
              kPlan.by_rows ? " by rows" : kPlan.fold_merged ? ", merged," : "", worst, largest, worst / largest, finite ? "" : ", NOT FINITE", pass ? "pass" : "FAIL");
  return pass;
}

int main(int argc, char** argv) {
  int sms = 0, clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  const double clock_ghz = clock_khz / 1e6;
  long long* cycles = nullptr;
  float* sink = nullptr;
  __half* filter = nullptr;  // U of C = K = 64 in the wgmma order: 24 stages of 12 KB, 288 KB (L2-resident)
  CHECK(cudaMalloc(&cycles, 4 * sizeof(long long) * sms));
  CHECK(cudaMalloc(&sink, sizeof(float) * 128));
  CHECK(cudaMalloc(&filter, sizeof(__half) * kGroupStages * kUStage));
  CHECK(cudaMemset(filter, 0, sizeof(__half) * kGroupStages * kUStage));
  std::printf("%d SMs at %.2f GHz (the device's reported clock; the times assume it)\n", sms, clock_ghz);
  const bool pairs = check_tc_fold<Plan{.sync = true, .tc_fold = true, .check = true}>(filter, cycles),
             by_rows = check_tc_fold<Plan{.sync = true, .tc_fold = true, .by_rows = true, .check = true}>(filter, cycles),
             merged = check_tc_fold<Plan{.sync = true, .tc_fold = true, .fold_merged = true, .check = true}>(filter, cycles);
  if (!pairs || !by_rows || !merged) return 1;
  if (argc > 1 && std::string(argv[1]) == "--check") return 0;
  if (argc > 1 && std::string(argv[1]) == "--consumers") {  // one consumer of 16 tiles against two of 8
    measure<16, Plan{.sync = true, .fold = true, .ring = 3}>("ring 3 + fold", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .fold = true, .ring = 3, .ffma_warps = 4}>("ring 3 + fold, 4 FMA warps beside", sms, clock_ghz, filter, cycles, sink);
    measure<8, Plan{.n = 8, .sync = true, .fold = true, .ring = 3}>("ring 3 + fold", sms, clock_ghz, filter, cycles, sink);
    measure<8, Plan{.n = 8, .sync = true, .consumers = 2}>("two consumers: sync", sms, clock_ghz, filter, cycles, sink);
    measure<8, Plan{.n = 8, .sync = true, .fold = true, .consumers = 2}>("two consumers: fold", sms, clock_ghz, filter, cycles, sink);
    measure<8, Plan{.n = 8, .sync = true, .fold = true, .ring = 3, .consumers = 2}>("two consumers: ring 3 + fold", sms, clock_ghz, filter, cycles, sink);
    measure<8, Plan{.n = 8, .sync = true, .fold = true, .ring = 3, .ffma_warps = 4, .consumers = 2}>("two consumers: ring 3 + fold, 4 FMA", sms, clock_ghz, filter, cycles, sink);
    measure<8, Plan{.n = 8, .sync = true, .fold = true, .ring = 3, .ffma_warps = 8, .consumers = 2}>("two consumers: ring 3 + fold, 8 FMA", sms, clock_ghz, filter, cycles, sink);
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "--fold") {  // the fold's lines alone
    measure<16, Plan{.sync = true}>("sync", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .fold = true}>("fold", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .tc_fold = true}>("tc fold", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .ring = 3}>("ring 3", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .fold = true, .ring = 3}>("ring 3 + fold", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .ring = 3, .tc_fold = true}>("ring 3 + tc fold", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .fold = true, .ffma_warps = 4}>("fold, 4 FMA warps beside", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .ffma_warps = 4, .tc_fold = true}>("tc fold, 4 FMA warps beside", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .fold = true, .ring = 3, .ffma_warps = 4}>("ring 3 + fold, 4 FMA warps beside", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .ring = 3, .ffma_warps = 4, .tc_fold = true}>("ring 3 + tc fold, 4 FMA warps beside", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .tc_fold = true, .fold_products = false}>("tc fold, stores only", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .tc_fold = true, .fold_stores = false}>("tc fold, products only", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .tc_fold = true, .fold_stores = false, .fold_fence = false}>("tc fold, products, no fence", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .tc_fold = true, .fold_fence = false}>("tc fold, no fence", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .tc_fold = true, .fold_merged = true}>("tc fold, merged", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .ring = 3, .tc_fold = true, .fold_merged = true}>("ring 3 + tc fold, merged", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .ring = 3, .ffma_warps = 4, .tc_fold = true, .fold_merged = true}>("ring 3 + tc fold, merged, 4 FMA warps", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .tc_fold = true, .by_rows = true}>("tc fold by rows", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .ring = 3, .tc_fold = true, .by_rows = true}>("ring 3 + tc fold by rows", sms, clock_ghz, filter, cycles, sink);
    measure<16, Plan{.sync = true, .ring = 3, .ffma_warps = 4, .tc_fold = true, .by_rows = true}>("ring 3 + tc fold by rows, 4 FMA warps", sms, clock_ghz, filter, cycles, sink);
    return 0;
  }
  measure<16, Plan{}>("products", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true}>("sync", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.serial = true}>("serial", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .fold = true}>("fold", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 3}>("ring 3", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 4}>("ring 4", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 6}>("ring 6", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .fold = true, .ring = 3}>("ring 3 + fold", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .fold = true, .ring = 4}>("ring 4 + fold", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .fold = true, .ring = 6}>("ring 6 + fold", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 3, .fence_first = true}>("ring 3, fence first", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .fold = true, .ring = 3, .fence_first = true}>("ring 3 + fold, fence first", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 6, .products = false}>("ring 6, no products", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 6, .products = false, .copies = 2}>("ring 6, no products, 2 copies", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 6, .products = false, .copies = 3}>("ring 6, no products, 3 copies", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 6, .products = false, .copies = 6}>("ring 6, no products, 6 copies", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 6, .copies = 6}>("ring 6, 6 copies", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .fold = true, .ring = 6, .copies = 6}>("ring 6 + fold, 6 copies", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 6, .spin = 400}>("ring 6 + 400-cycle wait", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 6, .spin = 800}>("ring 6 + 800-cycle wait", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 6, .products = false, .spin = 400}>("ring 6, no products + 400-cycle wait", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 6, .lsu = true, .spin = 400}>("ring 6 by cp.async + 400-cycle wait", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 6, .products = false, .lsu = true}>("ring 6 by cp.async, no products", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 3, .lsu = true}>("ring 3 by cp.async", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 6, .lsu = true}>("ring 6 by cp.async", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .fold = true, .ring = 3, .lsu = true}>("ring 3 + fold by cp.async", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .fold = true, .ring = 6, .lsu = true}>("ring 6 + fold by cp.async", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 6, .products = false, .both = true}>("ring 6 by both, no products", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 6, .both = true}>("ring 6 by both", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 6, .products = false, .issuer = true}>("ring 6 by an issuer warp, no products", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 6, .issuer = true}>("ring 6 by an issuer warp", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ring = 6, .spin = 400, .issuer = true}>("ring 6 by an issuer warp + 400-cycle wait", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .fold = true, .ring = 4, .issuer = true}>("ring 4 + fold by an issuer warp", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .fold = true, .ring = 6, .issuer = true}>("ring 6 + fold by an issuer warp", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .fold = true, .ring = 6, .issuer = true, .issuer_sleep = 100}>("ring 6 + fold by an issuer warp, sleep", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .background = true}>("sync, copies beside", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .fold = true, .background = true}>("fold, copies beside", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .fold = true, .ffma_warps = 4}>("fold, 4 FMA warps beside", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .fold = true, .ffma_warps = 4, .ffma_yield = 100}>("fold, 4 FMA warps beside, yielding", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .fold = true, .ring = 3, .ffma_warps = 4}>("ring 3 + fold, 4 FMA warps beside", sms, clock_ghz, filter, cycles, sink);
  measure<16, Plan{.sync = true, .ffma_warps = 4}>("sync, 4 FMA warps beside", sms, clock_ghz, filter, cycles, sink);
  for (const int blocks : {66, 33, 16, 8, 1})
    measure<16, Plan{.sync = true, .ring = 6}>("ring 6", sms, clock_ghz, filter, cycles, sink, blocks);
  measure<8, Plan{.n = 8}>("products", sms, clock_ghz, filter, cycles, sink);
  measure<8, Plan{.n = 8, .sync = true, .fold = true}>("fold", sms, clock_ghz, filter, cycles, sink);
  measure<8, Plan{.n = 8, .sync = true, .fold = true, .ring = 3}>("ring 3 + fold", sms, clock_ghz, filter, cycles, sink);
  CHECK(cudaFree(cycles));
  CHECK(cudaFree(sink));
  CHECK(cudaFree(filter));
  return 0;
}
