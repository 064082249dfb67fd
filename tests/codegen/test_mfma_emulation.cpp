// The MFMA fused kernel (nova/kernels/fused_mfma_kernels.hpp, AMD CDNA wave64), run on the CPU: its
// index math, LDS layout, filter order and lane ownership go through an emulated
// v_mfma_f32_16x16x16 that assembles A and B from the 64 lanes as AMD's ISA lays them out
// (tests/support/kernel_emulation.hpp), and every output pixel is compared with the FP64 reference
// (tests/support/fused_case.hpp). No AMD GPU has run this kernel; this is what stands for one.
#include "support/fused_case.hpp"  // first: its emulation stands in for the GPU built-ins

#include "all_transforms.hpp"

#include <set>

namespace {

using namespace nova::test;
using nova::kernels::fused_mfma_launch;

constexpr long long kMi300xLds = 64 * 1024;  // LDS a workgroup may use on CDNA3
constexpr int kMi300xComputeUnits = 304;

struct Device {
  int compute_units;
  long long lds;
};

// Each shape on: MI300X (many compute units; chunks of half its 64 KB); one compute unit with 160 KB
// (two tile groups a block wherever the tiles allow); and 12 KB, which forces chunks of one channel
// step where one fits at all. Bias with and without ReLU.
template <class Transform, Layout layout, typename T>
void check_mfma(const Shape& s, unsigned seed) {
  const FusedCase<Transform, T, layout> c(s, seed);
  for (const Device d : {Device{kMi300xComputeUnits, kMi300xLds}, Device{1, 160 * 1024}, Device{1, 12 * 1024}})
    for (int relu = 0; relu <= 1; ++relu) {
      const FusedLaunch launch = fused_mfma_launch(Transform::n, s.C, s.K, 1LL << 40, d.lds, d.compute_units);
      if (launch.tile_groups == 0) continue;  // never launched: one channel step does not fit
      const Comparison r = c.run_mfma(d.compute_units, d.lds, relu);
      c.check(r, relu, std::to_string(d.compute_units) + " compute units, LDS " + std::to_string(d.lds));
    }
}

// C < 16 and odd with K odd; C even, not a multiple of 8, K not a multiple of 4; C a multiple of 8
// only, K = 72 (two blocks of the grid's y); C beyond 128 (several chunks) with K beyond 64; more than
// 32 tiles (two tile groups, a partial last block). Border tiles and pads 0 to 2 throughout.
const std::vector<Shape> kShapes = {{2, 3, 5, 7, 9, 1}, {1, 18, 10, 6, 11, 1}, {1, 24, 72, 9, 5, 0},
                                    {1, 136, 70, 5, 6, 1}, {2, 16, 16, 18, 21, 2}};

}  // namespace

TEST_CASE("MFMA fused kernel, emulated on the CPU: channel classes, layouts, fp16 and bf16") {
  using F43 = nova::generated::f4x3_standard::Transform;
  using F23 = nova::generated::f2x3_standard::Transform;
  unsigned seed = 81;
  for (const Shape& s : kShapes) {
    check_mfma<F43, Layout::nhwc, __half>(s, seed++);
    check_mfma<F43, Layout::nchw, hip_bfloat16>(s, seed++);
  }
  check_mfma<F43, Layout::nchw, __half>(kShapes[1], seed++);
  check_mfma<F43, Layout::nhwc, hip_bfloat16>(kShapes[3], seed++);
  check_mfma<F23, Layout::nhwc, __half>(kShapes[4], seed++);
  check_mfma<F23, Layout::nchw, hip_bfloat16>(kShapes[1], seed++);
  check_mfma<nova::generated::f4x3_fp16_dyadic::Transform, Layout::nchw, __half>(kShapes[2], seed++);
}

// The test of the test: with the accumulator lanes transposed (a mapping the kernel does not
// follow) the same comparison must fail, so a lane-layout error cannot pass unseen.
TEST_CASE("MFMA emulation: a wrong accumulator lane mapping fails the kernel's check") {
  using F43 = nova::generated::f4x3_standard::Transform;
  const FusedCase<F43, __half, Layout::nhwc> c(kShapes[2], 5);
  nova::emulation::mfma_lanes = nova::emulation::MfmaLanes::transposed_accumulator;
  const Comparison wrong = c.run_mfma(kMi300xComputeUnits, kMi300xLds, 0);
  nova::emulation::mfma_lanes = nova::emulation::MfmaLanes::documented;
  const Comparison right = c.run_mfma(kMi300xComputeUnits, kMi300xLds, 0);
  INFO("err/bound: transposed lanes " << wrong.bound_use << ", documented " << right.bound_use);
  CHECK(wrong.bound_use > 100.0);
  CHECK(right.bound_use <= 1.0);
}

TEST_CASE("MFMA layouts: unique filter slots, one owner per accumulator, conflict-free LDS reads") {
  using namespace nova::kernels;
  // Every U element of the padded filter has its own slot, and a wave's blocks of one channel step
  // follow each other position by position.
  const int nn = 36, K = 48, C = 80;
  std::vector<int> seen(static_cast<std::size_t>(nn) * K * C, 0);
  for (int xi = 0; xi < nn; ++xi)
    for (int k = 0; k < K; ++k)
      for (int c = 0; c < C; ++c) {
        const long long at = MfmaFilterOrder::index(xi, k, c, nn, K, C);
        ++seen[static_cast<std::size_t>(at)];
        REQUIRE(at / 256 == (k / 16 * (C / 16) + c / 16) * nn + xi);
      }
  CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<long>(seen.size()));
  // A lane's A fragment is 4 consecutive elements at lane * 4 of its block.
  for (int lane = 0; lane < 64; ++lane)
    for (int i = 0; i < 4; ++i) {
      const nova::emulation::MfmaLane a = nova::emulation::mfma_a(static_cast<unsigned>(lane), i);
      REQUIRE(mfma_fragment_offset(a.row, a.column) == lane * 4 + i);
    }
  // Each accumulator element of the 16 x 16 product has one owner.
  std::set<std::pair<int, int>> owners;
  for (unsigned lane = 0; lane < 64; ++lane)
    for (int i = 0; i < 4; ++i) owners.insert({nova::emulation::mfma_d(lane, i).row, nova::emulation::mfma_d(lane, i).column});
  CHECK(owners.size() == 256);
  // V of a chunk of 3 channel steps, 2 tile groups: every (position, tile, channel) has its own
  // element, inside its step's and position's plane; the 16 lanes of a quarter wave, which read one
  // 4-channel group of 16 consecutive tiles (8 bytes each), meet 16 different 8-byte bank pairs of
  // LDS's 128 bytes; and the 4 channels a lane reads are consecutive.
  using V = MfmaVLayout<36, 32>;
  const int width = 48;
  std::vector<int> slots(static_cast<std::size_t>(36) * 32 * width, 0);
  for (int xi = 0; xi < 36; ++xi)
    for (int t = 0; t < 32; ++t)
      for (int c = 0; c < width; ++c) {
        const int at = V::offset(t, c) + xi * V::kPlane;
        REQUIRE(at / V::kPlane == c / 16 * 36 + xi);
        ++slots[static_cast<std::size_t>(at)];
      }
  CHECK(std::count(slots.begin(), slots.end(), 1) == static_cast<long>(slots.size()));
  for (int t0 : {0, 16})
    for (int c = 0; c < width; c += 4) {
      std::set<int> bank_pairs;
      for (int t = t0; t < t0 + 16; ++t) {
        REQUIRE(V::offset(t, c + 3) == V::offset(t, c) + 3);
        bank_pairs.insert(V::offset(t, c) * 2 % 128 / 8);
      }
      INFO("tiles from " << t0 << ", channel " << c);
      REQUIRE(bank_pairs.size() == 16);
    }
}

TEST_CASE("MFMA fused kernel launch: tile groups, chunks of the LDS, and shapes it refuses") {
  const auto is = [](FusedLaunch l, int tile_groups, int chunk) {
    return l.tile_groups == tile_groups && l.chunk == chunk && l.chunked == (tile_groups > 0) && l.k_blocks == (tile_groups > 0 ? 1 : 0);
  };
  // F(4,3) on MI300X: 36 positions x 16 tiles x 16 channels x 2 bytes = 18 KB a channel step, one
  // in half the LDS; one tile group always (fused_mfma_max_tile_groups), even where LDS has room.
  CHECK(is(fused_mfma_launch(6, 64, 64, 100000, kMi300xLds, kMi300xComputeUnits), 1, 16));
  CHECK(is(fused_mfma_launch(6, 64, 64, 100000, 160 * 1024, kMi300xComputeUnits), 1, 64));  // 160 KB: all 4 steps
  // F(2,3): 8 KB a step (and 64 registers of sums a group): two tile groups where the grid has 2 blocks a compute unit; else one group,
  // three steps in half the LDS, so 64 channels go in two even chunks.
  CHECK(is(fused_mfma_launch(4, 64, 64, 100000, kMi300xLds, kMi300xComputeUnits), 2, 16));
  CHECK(is(fused_mfma_launch(4, 64, 64, 1000, kMi300xLds, kMi300xComputeUnits), 1, 32));
  CHECK(is(fused_mfma_launch(4, 48, 64, 1000, kMi300xLds, kMi300xComputeUnits), 1, 48));
  CHECK(is(fused_mfma_launch(6, 3, 5, 1000, kMi300xLds, kMi300xComputeUnits), 1, 16));  // C and K padded to 16
  CHECK(is(fused_mfma_launch(6, 64, 64, 1000, 24 * 1024, kMi300xComputeUnits), 1, 16));  // only a whole LDS holds a step
  CHECK(is(fused_mfma_launch(6, 64, 64, 1000, 16 * 1024, kMi300xComputeUnits), 0, 0));   // not even one step fits
  CHECK(is(fused_mfma_launch(8, 64, 64, 1000, kMi300xLds, kMi300xComputeUnits), 0, 0));  // F(6,3): too many accumulators
  CHECK(is(fused_mfma_launch(6, 0, 64, 1000, kMi300xLds, kMi300xComputeUnits), 0, 0));
}
