// The fused fp16 and bf16 convolution, both NVIDIA generations: the mma.sync kernel
// (nova/kernels/fused_kernels.hpp) and the warp-specialised wgmma kernel (fused_wgmma_kernels.hpp,
// whose products the emulation runs through the same shared-memory descriptors the tensor cores
// read, and whose block barriers and bulk copies it models). For the first: its tile loops in both
// layouts, the filter reorder into its padded layout, every launch variant (tile groups, K blocks a
// warp, chunked channels) and every channel-count class (C below 16, odd, not a multiple of 16,
// beyond one chunk; K odd and not a multiple of 16), emulated on the CPU through the portable
// product (the mma path has the same fragment ownership; ctest -L gpu checks it against FP64).
// The cases and their reference: tests/support/fused_case.hpp.
#include "support/fused_case.hpp"  // first: its emulation stands in for the GPU built-ins

#include "support/emulated_transforms.hpp"

#include "nova/kernels/transform_registry.hpp"

#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <span>

namespace {

using namespace nova::test;

// Every launch variant a shape may take: the launch fused_launch picks with a whole SM's shared
// memory, chunks of one and of two channel steps, and for even C and K (the unchunked kernels'
// contract) tile groups 1, 2 and 4 and two K blocks a warp (also with two tile groups, which the
// kernel allows though fused_launch never picks it); and the chunked kernel, in chunks of one step
// and with every channel in one chunk, with its domain rows split over 2, 4 and 8 warps
// (fused_split_launch, for small grids).
template <class Transform, Layout layout, typename T = __half>
void check_launches(const Shape& s, unsigned seed) {
  const FusedCase<Transform, T, layout> c(s, seed);
  const int Cp = nova::kernels::fused_padded_channels(s.C);
  std::vector<FusedLaunch> launches = {nova::kernels::fused_launch(Transform::n, s.C, s.K, 227 * 1024),
                                       {1, 1, 16, true}, {1, 1, 32, true}};
  if (s.C % 2 == 0 && s.K % 2 == 0)
    launches.insert(launches.end(),
                    {{1, 1, Cp, false}, {2, 1, Cp, false}, {4, 1, Cp, false}, {1, 2, Cp, false}, {2, 2, Cp, false}});
  for (const int split : {2, 4, 8}) launches.insert(launches.end(), {{1, 1, 16, true, split}, {1, 1, Cp, true, split}});
  for (int relu = 0; relu <= 1; ++relu)
    for (const FusedLaunch& launch : launches) {
      REQUIRE(launch.tile_groups > 0);
      const Comparison r = c.run(launch, relu);
      c.check(r, relu, "tile groups " + std::to_string(launch.tile_groups) + ", K blocks " + std::to_string(launch.k_blocks) +
                           ", chunk " + std::to_string(launch.chunk) + (launch.chunked ? " chunked" : "") + ", rows split " +
                           std::to_string(launch.row_split));
    }
}

// Partial tile blocks, clipped border tiles, pad 0 to 2, several blocks and several tile groups in a
// block, with channel counts the kernel takes as they are.
template <class Transform>
void check_fused() {
  if constexpr (nova::kernels::fused_tile_supported(Transform::m, Transform::n)) {
    const std::vector<Shape> shapes = {
        {1, 16, 16, 9, 11, 1}, {2, 32, 80, 7, 13, 0}, {1, 16, 32, 5, 6, 2}, {2, 16, 16, 18, 21, 1}};
    unsigned seed = 7;
    for (const Shape& s : shapes) check_launches<Transform, Layout::nhwc>(s, seed++);
  }
}

template <class... Transforms>
void check_all(nova::generated::TransformList<Transforms...>) {
  (check_fused<Transforms>(), ...);
}

}  // namespace

TEST_CASE("fused fp16 kernel, emulated on the CPU, matches the reference within its rounding") {
  check_all(nova::test::EmulatedTransforms{});
}

// The same loops with padded channels, NCHW planes and chunks, on one F(4,3) and the F(2,3)
// transform (the transforms differ only in their straight-line code, which the case above covers).
TEST_CASE("fused fp16 kernel: every channel-count class and both layouts, emulated") {
  // C < 16 and odd, K odd; C even, not a multiple of 8, K not a multiple of 16; C a multiple of 8
  // only; C beyond two chunks of two steps (and beyond 128) with K beyond one block's slice of 64
  // (chunked: blockIdx.y > 0).
  const std::vector<Shape> shapes = {{2, 3, 5, 7, 9, 1}, {1, 18, 10, 6, 11, 1}, {1, 24, 40, 9, 5, 0},
                                     {1, 136, 72, 5, 6, 1}};
  unsigned seed = 21;
  for (const Shape& s : shapes) {
    check_launches<nova::generated::f4x3_standard::Transform, Layout::nhwc>(s, seed++);
    check_launches<nova::generated::f4x3_standard::Transform, Layout::nchw>(s, seed++);
    check_launches<nova::generated::f2x3_standard::Transform, Layout::nchw>(s, seed++);
  }
}

// The one-K-block kernels' NHWC epilogue by the whole block (fused_store_block): K = 64 (one pass of
// the block's warps) and K = 120 (two, the second past K in its last 8 channels), border tiles,
// every tile-group count (a block barrier per group), fp16 and bf16.
TEST_CASE("fused kernel: NHWC outputs stored by the whole block, emulated") {
  using nova::kernels::fused_block_stores;
  CHECK(fused_block_stores(Layout::nhwc, 64));
  CHECK(fused_block_stores(Layout::nhwc, 120));
  CHECK_FALSE(fused_block_stores(Layout::nchw, 64));
  CHECK_FALSE(fused_block_stores(Layout::nhwc, 80));  // warps would take 1 or 2 K blocks
  CHECK_FALSE(fused_block_stores(Layout::nhwc, 60));  // K not a multiple of 8
  const std::vector<Shape> shapes = {{1, 24, 64, 10, 9, 1}, {2, 16, 120, 7, 9, 0}};
  unsigned seed = 61;
  for (const Shape& s : shapes) {
    check_launches<nova::generated::f4x3_standard::Transform, Layout::nhwc>(s, seed++);
    check_launches<nova::generated::f2x3_standard::Transform, Layout::nhwc>(s, seed++);
    check_launches<nova::generated::f4x3_standard::Transform, Layout::nhwc, hip_bfloat16>(s, seed++);
  }
}

// bf16: the same loops on the storage type with 8 bits of precision, in both layouts, unchunked and
// chunked.
TEST_CASE("fused bf16 kernel, emulated on the CPU, matches the reference within its rounding") {
  const std::vector<Shape> shapes = {{2, 32, 80, 7, 13, 0}, {2, 3, 5, 7, 9, 1}, {1, 136, 72, 5, 6, 1}};
  unsigned seed = 41;
  for (const Shape& s : shapes) {
    check_launches<nova::generated::f4x3_standard::Transform, Layout::nhwc, hip_bfloat16>(s, seed++);
    check_launches<nova::generated::f4x3_fp16_dyadic::Transform, Layout::nchw, hip_bfloat16>(s, seed++);
  }
}

TEST_CASE("fused kernel launch: tile side, padded channels and shared memory") {
  using nova::kernels::fused_launch;
  const auto is = [](FusedLaunch l, int tile_groups, int k_blocks, int chunk, bool chunked) {
    return l.tile_groups == tile_groups && l.k_blocks == k_blocks && l.chunk == chunk && l.chunked == chunked;
  };
  CHECK(is(fused_launch(6, 16, 64, 227 * 1024), 4, 1, 16, false));     // two blocks of 64 tiles share an SM
  CHECK(is(fused_launch(6, 64, 64, 227 * 1024), 1, 1, 64, false));     // two blocks of 16 tiles
  CHECK(is(fused_launch(6, 128, 128, 227 * 1024), 1, 2, 128, false));  // one block of 16 tiles, two K blocks a warp
  CHECK(is(fused_launch(6, 256, 256, 227 * 1024), 1, 1, 128, true));   // two chunks of 128 channels
  CHECK(is(fused_launch(6, 512, 64, 227 * 1024), 1, 1, 128, true));    // four
  CHECK(is(fused_launch(6, 300, 64, 227 * 1024), 1, 1, 160, true));    // 304 padded: chunks of 160 and 144
  CHECK(is(fused_launch(4, 256, 256, 227 * 1024), 1, 2, 256, false));
  CHECK(is(fused_launch(6, 16, 64, 64 * 1024), 1, 1, 16, true));       // an AMD CU's 64 KB of LDS: one step a chunk
  CHECK(is(fused_launch(4, 16, 64, 64 * 1024), 1, 2, 16, false));      // one block of F(2,3) fits
  CHECK(is(fused_launch(6, 24, 64, 227 * 1024), 2, 1, 32, false));     // C padded to 32
  CHECK(is(fused_launch(6, 3, 64, 227 * 1024), 1, 1, 16, true));       // odd C: chunked, element by element
  CHECK(is(fused_launch(6, 16, 5, 227 * 1024), 1, 1, 16, true));       // odd K too
  CHECK(is(fused_launch(6, 64, 40, 227 * 1024), 1, 1, 64, false));
  CHECK(is(fused_launch(8, 64, 64, 227 * 1024), 0, 0, 0, false));      // F(6,3): too many accumulators
  CHECK(is(fused_launch(6, 64, 64, 36 * 1024), 0, 0, 0, false));       // not even one channel step fits
  CHECK(is(fused_launch(6, 0, 64, 227 * 1024), 0, 0, 0, false));
}

TEST_CASE("fused kernel launch with split rows: the chunked kernel, one tile group, K in slices") {
  using nova::kernels::fused_split_launch;
  const long long shared = 227 * 1024;
  const auto is = [](FusedLaunch l, int tile_groups, int k_blocks, int chunk, bool chunked, int split) {
    return l.tile_groups == tile_groups && l.k_blocks == k_blocks && l.chunk == chunk && l.chunked == chunked &&
           l.row_split == split;
  };
  // No split: fused_launch's launch (here two tile groups a block, two blocks an SM).
  CHECK(is(fused_split_launch(4, 2, 64, 64, 1, shared), 2, 1, 64, false, 1));
  // Split: one tile group, the chunked kernel with every channel in one chunk where it fits.
  CHECK(is(fused_split_launch(4, 2, 64, 64, 4, shared), 1, 1, 64, true, 4));
  CHECK(is(fused_split_launch(6, 4, 128, 128, 2, shared), 1, 1, 128, true, 2));
  CHECK(is(fused_split_launch(6, 4, 256, 256, 8, shared), 1, 1, 128, true, 8));  // chunks of 128
  CHECK(is(fused_split_launch(8, 6, 64, 64, 2, shared), 0, 0, 0, false, 1));      // F(6,3) runs no fused kernel
  // K in slices of kFusedWarps / split K blocks: 8 K blocks (K = 64) in 1, 2, 4, 8 slices.
  for (const int split : {1, 2, 4, 8}) {
    const FusedLaunch l = fused_split_launch(6, 4, 64, 64, split, shared);
    CHECK(nova::kernels::fused_blocks(196, 64, l) == 13LL * split);
  }
  // The partial outputs go where V was: at C = 16, V (18 KB) is smaller than 7 warps' outputs.
  const FusedLaunch small = fused_split_launch(6, 4, 16, 16, 8, shared);
  CHECK(nova::kernels::fused_launch_shared_bytes(6, 4, small) ==
        nova::kernels::fused_shared_bytes(6, 16, 1, 1) - 36 * 16 * 16 * 2 + nova::kernels::fused_partial_bytes(6, 4, 8));
  // Where the partial outputs do not fit (64 KB: one channel step fits, chunked), no split.
  const FusedLaunch lds = fused_split_launch(6, 4, 16, 16, 8, 64 * 1024);
  CHECK(is(lds, 1, 1, 16, true, 1));
}

TEST_CASE("fused filter layout: every U element of the padded filter has its own slot") {
  for (const int n : {4, 6}) {
    const int nn = n * n, K = 32, C = 48;
    std::vector<int> seen(static_cast<std::size_t>(nn) * K * C, 0);
    for (int xi = 0; xi < nn; ++xi)
      for (int k = 0; k < K; ++k)
        for (int c = 0; c < C; ++c) {
          const long long at = nova::kernels::fused_filter_index(n, xi, k, c, C);
          REQUIRE((at >= 0 && at < static_cast<long long>(seen.size())));
          ++seen[static_cast<std::size_t>(at)];
        }
    CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<long>(seen.size()));
  }
}

TEST_CASE("fused filter layout: a lane's 16-byte load holds its mma B fragments of two positions, a warp's 512 bytes") {
  using nova::kernels::fused_u_run_offset;
  for (const int n : {4, 6})
    for (int lane = 0; lane < 32; ++lane)
      for (int j = 0; j < n; j += 2)
        for (int e = 0; e < 8; ++e) {
          // PTX ISA, mma.m16n8k16 B fragment (B = U^T): lane g * 4 + q holds U[g][2q], U[g][2q + 1],
          // U[g][2q + 8], U[g][2q + 9]; the load's halves 0-3 are position j's, 4-7 position j + 1's,
          // and the warp's 32 loads are one run of 512 bytes.
          const int k = lane / 4, c = 2 * (lane % 4) + (e % 4) / 2 * 8 + e % 2;
          CHECK(fused_u_run_offset(j + e / 4, k, c) == (j / 2 * 32 + lane) * 8 + e);
        }
}

// The shared V of the mma.sync kernel (fused_v_offset): one slot an element, ldmatrix rows and an
// NHWC warp's pair stores (one tile's 64, 32 or 16 channels, or two or four tiles of fewer) on
// distinct bank groups, and the ldmatrix address the kernel computes a step (fused_v_lane_row) at
// the element it names.
TEST_CASE("fused V layout: unique slots, conflict-free ldmatrix rows and NHWC stores, lane rows") {
  using namespace nova::kernels;
  const auto bank_group = [](int halves) { return halves / 8 % 8; };  // 16 bytes of 128
  for (const int n : {4, 6})
    for (const int steps : {1, 2, 3, 4, 8}) {
      const int nn = n * n, capacity = 32, width = steps * kFusedChannelStep;
      std::vector<int> seen(static_cast<std::size_t>(nn) * capacity * width, 0);
      for (int t = 0; t < capacity; ++t)
        for (int c = 0; c < width; ++c)
          for (int xi = 0; xi < nn; ++xi) {
            const int at = fused_v_offset(t, c, xi, nn, steps);
            REQUIRE((at >= 0 && at < static_cast<int>(seen.size())));
            ++seen[static_cast<std::size_t>(at)];
          }
      CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<long>(seen.size()));
      for (int s = 0; s < steps; ++s)
        for (int lane = 0; lane < 32; ++lane)
          CHECK(fused_v_lane_row(lane, s) == fused_v_block_offset(lane % 16, 8 * (lane / 16), s));
      for (int s = 0; s < steps; ++s)
        for (int matrix = 0; matrix < 4; ++matrix) {  // ldmatrix .x4: 8 rows of 16 bytes each
          std::set<int> groups;
          for (int r = 0; r < 8; ++r) groups.insert(bank_group(fused_v_offset(matrix % 2 * 8 + r, matrix / 2 * 8 + s * 16, 7, nn, steps)));
          CHECK(groups.size() == 8);
        }
      // NHWC: consecutive items are consecutive channel pairs of a tile (fused_input_transform); the
      // pairs a 16-byte slot holds share its bank group, so a warp's 32 stores are conflict-free
      // when each bank group holds one slot of them. (Chunks of 3 steps meet 2-way conflicts.)
      if (steps == 3) continue;
      const int pairs = width / 2;
      for (int first = 0; first < capacity * pairs; first += 32) {
        std::map<int, std::set<int>> slots;  // bank group -> slots
        for (int item = first; item < first + 32; ++item) {
          const int at = fused_v_offset(item / pairs, 2 * (item % pairs), 5, nn, steps);
          slots[bank_group(at)].insert(at / 8);
        }
        for (const auto& [group, in] : slots) CHECK(in.size() == 1);
      }
    }
}

// The wgmma kernel: every channel-count class (C < 16 and odd; not a multiple of 16; 64; beyond 128),
// K below, at and beyond one block of 64 (odd, not a multiple of 8; exactly 64, whose NHWC tile rows
// the copy engine stores, with rows and columns of border tiles outside), border tiles and pads 0 to 2,
// both layouts, fp16 and bf16, bias with and without ReLU, 16 and 8 tiles a group, persistent
// blocks that take several tile groups each (so V slots and U stages are reused), and U rings of the
// fewest stages and of as many as an H200's shared memory holds.
template <class Transform, Layout layout, typename T>
void check_wgmma(const Shape& s, unsigned seed) {
  using nova::kernels::kWgUStages;
  const FusedCase<Transform, T, layout> c(s, seed);
  for (int relu = 0; relu <= 1; ++relu)
    for (const unsigned blocks : {1u, 3u})
      for (const int tiles : {16, 8}) {
        const auto layout_of = [&](int stages) { return nova::kernels::fused_wg_layout(Transform::n, Transform::m, s.C, s.K, tiles, layout, stages); };
        if (layout_of(kWgUStages).bytes > 227 * 1024) continue;  // never launched
        const int deepest = nova::kernels::fused_wg_u_stages(Transform::n, Transform::m, s.C, s.K, tiles, layout, 227 * 1024);
        std::vector<int> rings = {kWgUStages};
        if (deepest > kWgUStages && blocks > 1) rings.push_back(deepest);  // a deeper ring where it is reused
        for (const int stages : rings) {
          const Comparison r = tiles == 16 ? c.template run_wgmma<16>(blocks, relu, stages)
                                           : c.template run_wgmma<8>(blocks, relu, stages);
          c.check(r, relu, std::to_string(blocks) + " blocks of " + std::to_string(tiles) + "-tile groups, " +
                               std::to_string(stages) + " U stages");
        }
      }
}

// A tensor-core launch's groups: as few tiles, in fours, as keep the waves of groups of 16; the FP path's stay whole.
TEST_CASE("wgmma tile groups: balanced over the waves on the tensor-core path") {
  using nova::kernels::fused_wg_group_size;
  CHECK(fused_wg_group_size(16, 1568, 132, true) == 12);    // ResNet-50 64@56 b8: 131 groups, not 98
  CHECK(fused_wg_group_size(16, 3136, 132, true) == 12);    // VGG-16 64@224 b1: two waves of 132, not 196 groups
  CHECK(fused_wg_group_size(16, 12544, 132, true) == 16);   // VGG-16 64@224 b8: 6 waves of 16 already
  CHECK(fused_wg_group_size(16, 2112, 132, true) == 16);    // one full wave
  CHECK(fused_wg_group_size(16, 2113, 132, true) == 12);    // two waves: 8.003 tiles a group of 264 -> 12 (whole fours)
  CHECK(fused_wg_group_size(16, 132, 132, true) == 4);      // a tile an SM: a batch of each warpgroup
  CHECK(fused_wg_group_size(16, 1568, 132, false) == 16);   // the FP path
  CHECK(fused_wg_group_size(16, 0, 132, true) == 16);
}

// A launch of a shape whose groups are 16 takes 8 where those all fit one wave (fused_wg_wave_tiles).
TEST_CASE("wgmma tile groups: 8 in place of 16 where they fit one wave") {
  using nova::kernels::fused_wg_wave_tiles;
  CHECK(fused_wg_wave_tiles(16, 196, 132) == 8);     // ResNet-50 64@56 b1, F(4,3): 25 groups of 8
  CHECK(fused_wg_wave_tiles(16, 8 * 132, 132) == 8);  // 132 groups of 8
  CHECK(fused_wg_wave_tiles(16, 8 * 132 + 1, 132) == 16);
  CHECK(fused_wg_wave_tiles(16, 3136, 132) == 16);   // VGG-16 64@224 b1: 392 groups of 8
  CHECK(fused_wg_wave_tiles(8, 100, 132) == 8);      // a shape whose groups are 8 keeps them
  CHECK(fused_wg_wave_tiles(0, 100, 132) == 0);      // not this kernel
}

TEST_CASE("wgmma fused kernel, emulated on the CPU: channel classes, layouts, fp16 and bf16") {
  using nova::generated::f2x3_standard::Transform;
  using F43 = nova::generated::f4x3_standard::Transform;
  const std::vector<Shape> shapes = {{2, 3, 5, 7, 9, 1}, {1, 24, 72, 9, 5, 0}, {2, 16, 16, 18, 21, 1},
                                     {1, 64, 130, 6, 7, 2}, {1, 136, 40, 5, 6, 1}, {2, 32, 64, 10, 11, 1}};
  unsigned seed = 61;
  for (const Shape& s : shapes) {
    check_wgmma<F43, Layout::nhwc, __half>(s, seed++);
    check_wgmma<F43, Layout::nchw, hip_bfloat16>(s, seed++);
  }
  check_wgmma<Transform, Layout::nhwc, hip_bfloat16>(shapes[2], seed++);
  check_wgmma<Transform, Layout::nchw, __half>(shapes[0], seed++);
}

// The tiles the fused kernels take (fused_tile_supported), and the code generator emits them for those alone:
// F(3,3) (3 x 3 outputs of a 5 x 5 patch, no built-in configuration, generated into the build tree) gets the
// 3-pass kernels only; its file compiles (codegen.compile.*.f3x3_standard_kernels, tests/codegen/CMakeLists.txt).
TEST_CASE("the fused kernels' tiles: the code generator emits them for those alone") {
  using nova::kernels::fused_tile_supported;
  CHECK(fused_tile_supported(2, 4));        // F(2,3)
  CHECK(fused_tile_supported(4, 6));        // F(4,3)
  CHECK(fused_tile_supported(2, 6));        // F(2,5)
  CHECK_FALSE(fused_tile_supported(3, 5));  // F(3,3): n odd, m not a power of two
  CHECK_FALSE(fused_tile_supported(2, 5));  // F(2,4): n odd
  CHECK_FALSE(fused_tile_supported(3, 4));  // F(3,2): m not a power of two
  CHECK_FALSE(fused_tile_supported(5, 6));  // F(5,2): its outputs do not fit the restaged epilogue
  CHECK_FALSE(fused_tile_supported(6, 8));  // F(6,3): larger than the registers hold
  std::ifstream file(NOVA_ODD_TILE_DIR "/f3x3_standard_kernels.hip");
  REQUIRE(file);
  const std::string source{std::istreambuf_iterator<char>(file), {}};
  CHECK(source.find("_input_") != std::string::npos);  // the 3-pass kernels
  CHECK(source.find("_fused_") == std::string::npos);
}

// The wgmma kernel's input transform on the tensor cores (fused_wg_tc_input): F(4,3) NHWC fp16 and bf16 with
// 64 channels and K up to 64, through the emulated tensor copies (the swizzle, zeros outside the image) and
// the register-A products: border tiles on every side, pads 0 to 2, last tile groups of 4, 8 and 3 tiles (their
// missing tiles' copies left out), blocks that take several groups (each slot used again), K = 64 (the
// copy engine's tile rows) and K below it, bias with and without ReLU; tile rows of 6 and 4 tiles (a copy a pair of
// neighbours, fused_wg_tc_copy_tiles) and of 1 (a copy a tile); groups of 12 and 4 tiles (fused_wg_group_size: odd
// and single batch counts a warpgroup, so that the patch slots' phases run on across groups). bf16 differs only in
// its element type (fragments, products, V stores, the map's type), so it takes the first shape alone.
template <class Transform, typename T>
void check_tc_input(std::size_t shape_count) {
  const std::vector<Shape> shapes = {{1, 64, 64, 22, 23, 1}, {2, 64, 40, 9, 14, 2}, {1, 64, 64, 13, 6, 0}};
  for (const auto& [s, copy_tiles] : std::vector<std::pair<Shape, int>>{{shapes[0], 2}, {shapes[1], 2}, {shapes[2], 1}}) {
    nova::kernels::TileGrid g{};
    REQUIRE(nova::kernels::make_tile_grid(Transform::m, Transform::r, s.N, s.C, s.H, s.W, s.pad, g));
    CHECK(nova::kernels::fused_wg_tc_copy_tiles(g) == copy_tiles);
  }
  unsigned seed = 91;
  for (const Shape& s : std::span(shapes).first(shape_count)) {
    const FusedCase<Transform, T, Layout::nhwc> c(s, seed++);
    for (int relu = 0; relu <= 1; ++relu)
      for (const unsigned blocks : {1u, 2u}) {
        const Comparison r = c.template run_wgmma<16>(blocks, relu, nova::kernels::WgTcPlan::u_stages, true);
        c.check(r, relu, std::to_string(blocks) + " blocks, the input transform on the tensor cores");
      }
    for (const int group_tiles : {12, 4}) {
      const Comparison r = c.template run_wgmma<16>(2, 1, nova::kernels::WgTcPlan::u_stages, true, group_tiles);
      c.check(r, 1, "2 blocks, the input transform on the tensor cores, groups of " + std::to_string(group_tiles));
    }
  }
}

// The generated Transform's counts are the function's on the JSON's B^T (the registry entry refers to them). The
// table the kernel's fragments are made from (fused_wg_tc_table: the generated input_2d in fp32 on unit patches, at
// compile time) is B^T (x) B^T exactly wherever the path may run, so that the tables of the storage type sum to it.
template <class Transform>
void check_tc_table() {
  using nova::kernels::Storage;
  const nova::kernels::TransformEntry* t = nova::kernels::find_transform(Transform::name);
  REQUIRE(t);
  INFO(Transform::name);
  const auto fp16 = nova::kernels::fused_wg_kronecker_tables(t->n, t->BT, Storage::f16),
             bf16 = nova::kernels::fused_wg_kronecker_tables(t->n, t->BT, Storage::bf16);
  CHECK(Transform::kronecker_terms_fp16 == fp16.terms);
  CHECK(Transform::kronecker_terms_bf16 == bf16.terms);
  CHECK(Transform::kronecker_second_rows_fp16 == fp16.second_rows);
  CHECK(Transform::kronecker_second_rows_bf16 == bf16.second_rows);
  if constexpr (Transform::n == nova::kernels::kWgTcSide) {
    if (t->kronecker_terms_fp16 == 0 && t->kronecker_terms_bf16 == 0) return;
    constexpr int n = Transform::n, nn = n * n;
    constexpr nova::kernels::WgTcTable table = nova::kernels::fused_wg_tc_table<Transform>();
    for (int k = 0; k < nn; ++k)
      for (int xi = 0; xi < nn; ++xi) {
        INFO(Transform::name << " position " << xi << ", patch element " << k);
        CHECK(static_cast<double>(table.e[xi * nn + k]) == t->BT[xi / n * n + k / n] * t->BT[xi % n * n + k % n]);
      }
  }
}
template <class... Transforms>
void check_tc_tables(nova::generated::TransformList<Transforms...>) {
  (check_tc_table<Transforms>(), ...);
}

// The fragments of two tables (kWgTcFragments, made at compile time) sum to the table exactly, element by element, in
// every thread's places, and the second is zero in the k-steps whose patch rows the Transform's second_rows leave out
// (whose products the kernel leaves out).
template <class Transform, typename T>
void check_tc_fragments() {
  using Tables = nova::kernels::WgTcTables<Transform, T>;
  static_assert(Tables::terms == 2, "a transform of two tables in T");
  constexpr int n = Transform::n, nn = n * n;
  constexpr nova::kernels::WgTcTable table = nova::kernels::fused_wg_tc_table<Transform>();
  for (int thread = 0; thread < 128; ++thread) {
    const auto& f = nova::kernels::kWgTcFragments<Transform, T>.thread[thread];
    for (int q = 0; q < 3; ++q) {
      INFO(Transform::name << " thread " << thread << " k-step " << q);
      for (int i = 0; i < 4; ++i)
        for (int h = 0; h < 2; ++h) {
          T hi[2], lo[2];
          std::memcpy(hi, &f.a[0][q][i], sizeof hi);
          std::memcpy(lo, &f.a[1][q][i], sizeof lo);
          const int xi = thread / 32 * 16 + thread % 32 / 4 + 8 * (i % 2), k = 16 * q + thread % 4 * 2 + 8 * (i / 2) + h;
          const double want = xi < nn && k % 8 < n ? table.e[xi * nn + k / 8 * n + k % 8] : 0.0;
          CHECK(static_cast<double>(static_cast<float>(hi[h])) + static_cast<float>(lo[h]) == want);
          if ((Tables::second_rows >> 2 * q & 3u) == 0) CHECK(static_cast<float>(lo[h]) == 0.0f);
        }
    }
  }
}

TEST_CASE("wgmma fused kernel: the input transform on the tensor cores, emulated") {
  const auto kronecker_terms = [](int n, const double* BT, nova::kernels::Storage storage) {
    return nova::kernels::fused_wg_kronecker_tables(n, BT, storage).terms;
  };
  using nova::kernels::fused_wg_tc_input;
  using nova::kernels::Storage;
  // The registry's answers are the check's on the JSON's B^T, for every generated transform.
  for (const nova::kernels::TransformEntry& t : nova::kernels::transform_registry()) {
    INFO(t.name);
    CHECK(t.kronecker_terms_fp16 == kronecker_terms(t.n, t.BT, Storage::f16));
    CHECK(t.kronecker_terms_bf16 == kronecker_terms(t.n, t.BT, Storage::bf16));
  }
  check_tc_tables(nova::generated::AllTransforms{});
  // The dyadic sets' second tables: patch rows 0-3 (their B^T's columns 4 and 5 hold powers of two and zeros).
  CHECK(nova::generated::f4x3_fp16_dyadic::Transform::kronecker_second_rows_fp16 == 0xFu);
  CHECK(nova::generated::f4x3_nova_dyadic::Transform::kronecker_second_rows_bf16 == 0xFu);
  check_tc_fragments<nova::generated::f4x3_fp16_dyadic::Transform, __half>();
  check_tc_fragments<nova::generated::f4x3_nova_dyadic::Transform, hip_bfloat16>();
  const auto terms = [](const char* name, Storage storage) {
    const auto* t = nova::kernels::find_transform(name);
    REQUIRE(t);
    return storage == Storage::f16 ? t->kronecker_terms_fp16 : t->kronecker_terms_bf16;
  };
  // Of the F(4,3) sets the standard one in one table (products of its entries at most 25, 5 significant bits),
  // and fp16_tc, searched for that (nova-discover --tensor-core: {0, +-1/2, +-3/2}, B^T's entries 1/8 ... 5/4 with
  // at most 4 significant bits); the dyadic accurate ones in two (their B^T's entries have at most 8 significant
  // bits in fp16_dyadic and nova_dyadic, so their products at most 16, which 11 + 11 and 8 + 8 hold; kappa_dyadic's
  // 1225/1024 has 11, which bf16's 8 + 8 do not); f4x3_fp16 in none (thirds and sevenths).
  for (const Storage storage : {Storage::f16, Storage::bf16}) {
    CHECK(terms("f4x3_standard", storage) == 1);
    CHECK(terms("f4x3_fp16_tc", storage) == 1);
    CHECK(terms("f4x3_fp16_dyadic", storage) == 2);
    CHECK(terms("f4x3_nova_dyadic", storage) == 2);
    CHECK(terms("f4x3_fp16", storage) == 0);
  }
  CHECK(terms("f4x3_kappa_dyadic", Storage::f16) == 2);
  CHECK(terms("f4x3_kappa_dyadic", Storage::bf16) == 0);
  CHECK(kronecker_terms(6, nova::kernels::find_transform("f4x3_standard")->BT, Storage::f32) == 0);
  CHECK(terms("f6x3_fp16", Storage::f16) == 1);  // n = 8, which the kernel does not take yet
  // The bounds of fp16's tables (B^T = diag(v, 1), so its products are v^2, v and 1): 2^-24 is fp16's finest
  // step, 65504 its largest value, 11 significant bits a table's and 22 two tables'.
  const auto diagonal = [&](double v) {
    const double BT[4] = {v, 0.0, 0.0, 1.0};
    return kronecker_terms(2, BT, Storage::f16);
  };
  CHECK(diagonal(0x1p-12) == 1);        // 2^-24
  CHECK(diagonal(0x1p-13) == 0);        // 2^-26
  CHECK(diagonal(240.0) == 1);          // 57600 = 225 x 2^8
  CHECK(diagonal(256.0) == 0);          // 65536
  CHECK(diagonal(65.0) == 2);           // 4225 = 4224 + 1
  CHECK(diagonal(255.0) == 2);          // 65025 = 65024 + 1
  CHECK(diagonal(1 + 0x1p-15) == 0);    // 1 + 2^-14 + 2^-30: 2^-14 + 2^-30 left, below the finest step
  const double diagonal_65[4] = {65.0, 0.0, 0.0, 1.0};  // only 65^2 needs the second table: column 0's products
  CHECK(nova::kernels::fused_wg_kronecker_tables(2, diagonal_65, Storage::f16).second_rows == 1u);
  // A grid of 100,352 tiles (VGG-16 64@224 at batch 32: 6,272 groups) on 132 SMs takes either; two tables need two
  // groups an SM (264 groups, 4,224 tiles).
  constexpr long long kTiles = 100352;
  CHECK(fused_wg_tc_input(6, 64, 64, Layout::nhwc, 16, Storage::f16, 1, kTiles, 132));
  CHECK(fused_wg_tc_input(6, 64, 64, Layout::nhwc, 16, Storage::f16, 2, kTiles, 132));
  CHECK(fused_wg_tc_input(6, 64, 64, Layout::nhwc, 16, Storage::bf16, 1, kTiles, 132));
  CHECK(fused_wg_tc_input(6, 64, 64, Layout::nhwc, 16, Storage::f16, 1, 4208, 132));
  CHECK_FALSE(fused_wg_tc_input(6, 64, 64, Layout::nhwc, 16, Storage::f16, 2, 4208, 132));  // 263 groups
  CHECK(fused_wg_tc_input(6, 64, 64, Layout::nhwc, 16, Storage::f16, 2, 4209, 132));        // 264
  CHECK_FALSE(fused_wg_tc_input(6, 64, 64, Layout::nhwc, 16, Storage::f16, 3, kTiles, 132));
  CHECK_FALSE(fused_wg_tc_input(6, 64, 64, Layout::nhwc, 16, Storage::f32, 1, kTiles, 132));
  CHECK_FALSE(fused_wg_tc_input(6, 64, 65, Layout::nhwc, 16, Storage::f16, 1, kTiles, 132));  // two blocks of outputs
  CHECK_FALSE(fused_wg_tc_input(6, 64, 64, Layout::nchw, 16, Storage::f16, 1, kTiles, 132));
  CHECK_FALSE(fused_wg_tc_input(6, 48, 64, Layout::nhwc, 16, Storage::f16, 1, kTiles, 132));
  CHECK_FALSE(fused_wg_tc_input(4, 64, 64, Layout::nhwc, 16, Storage::f16, 1, kTiles, 132));
  CHECK_FALSE(fused_wg_tc_input(6, 64, 64, Layout::nhwc, 16, Storage::f16, 0, kTiles, 132));
  // The patch slots fit beside two V slots and the fewest U stages on an H200, the ring the path's plan fixes.
  CHECK(nova::kernels::fused_wg_u_stages(6, 4, 64, 64, 16, Layout::nhwc, 227 * 1024, true) == nova::kernels::kWgUStages);
  CHECK(nova::kernels::fused_wg_launch_u_stages(6, 4, 64, 64, 16, Layout::nhwc, 227 * 1024, 100352, 132, true) ==
        nova::kernels::WgTcPlan::u_stages);
  using Standard = nova::generated::f4x3_standard::Transform;
  using Dyadic = nova::generated::f4x3_fp16_dyadic::Transform;  // two tables in either type
  using Tc = nova::generated::f4x3_fp16_tc::Transform;           // one table, entries other than standard's
  SECTION("fp16") { check_tc_input<Standard, __half>(3); }
  SECTION("bf16") { check_tc_input<Standard, hip_bfloat16>(1); }
  SECTION("fp16, the tensor-core set") { check_tc_input<Tc, __half>(1); }
  SECTION("fp16, two tables") { check_tc_input<Dyadic, __half>(3); }
  SECTION("bf16, two tables") { check_tc_input<Dyadic, hip_bfloat16>(1); }
}

// NCHW patch rows read and output rows stored in aligned runs (load_pair_patch_runs in both kernels'
// producers, store_staged_tile_row in both epilogues): where the widths are multiples of the run and
// the padding 1 (x and y aligned), runs outside the image on every side, clipped tile rows, C odd (the
// last pair's second channel read where the first is), below 16 and beyond one chunk, every launch
// variant of the mma.sync kernel and the wgmma kernel, fp16 and bf16.
TEST_CASE("fused kernels: NCHW rows in aligned runs, emulated") {
  using F43 = nova::generated::f4x3_standard::Transform;
  using F23 = nova::generated::f2x3_standard::Transform;
  using nova::kernels::nchw_patch_runs;
  const std::vector<__half> buffer(8);
  const auto runs = [&](int m, int W, int pad, int offset) {
    nova::kernels::TileGrid g{};
    REQUIRE(nova::kernels::make_tile_grid(m, 3, 1, 1, 8, W, pad, g));
    return m == 4 ? nchw_patch_runs<4>(buffer.data() + offset, g) : nchw_patch_runs<2>(buffer.data() + offset, g);
  };
  CHECK(runs(4, 12, 1, 0));
  CHECK(runs(4, 12, 5, 4));        // the padding's place in a run is what matters
  CHECK_FALSE(runs(4, 10, 1, 0));  // rows start off a run of 4
  CHECK(runs(2, 10, 1, 0));
  CHECK_FALSE(runs(4, 12, 0, 0));
  CHECK_FALSE(runs(4, 12, 2, 0));
  CHECK_FALSE(runs(4, 12, 1, 2));  // x not aligned to a run
  CHECK_FALSE(runs(2, 10, 1, 1));
  using nova::kernels::nchw_rows_on_runs;  // the output rows' condition
  CHECK(nchw_rows_on_runs<4>(buffer.data() + 4, 12));
  CHECK_FALSE(nchw_rows_on_runs<4>(buffer.data(), 10));
  CHECK_FALSE(nchw_rows_on_runs<4>(buffer.data() + 2, 12));
  CHECK(nchw_rows_on_runs<2>(buffer.data() + 2, 10));
  CHECK_FALSE(nchw_rows_on_runs<3>(buffer.data(), 12));  // a run of one element
  const std::vector<Shape> shapes = {{2, 24, 40, 9, 12, 1}, {1, 5, 16, 8, 8, 1}, {1, 136, 24, 6, 4, 1}};
  unsigned seed = 81;
  for (const Shape& s : shapes) {
    REQUIRE(runs(4, s.W, s.pad, 0));
    check_launches<F43, Layout::nchw>(s, seed++);
    check_launches<F23, Layout::nchw>(s, seed++);
    check_launches<F43, Layout::nchw, hip_bfloat16>(s, seed++);
    check_wgmma<F43, Layout::nchw, __half>(s, seed++);
  }
}

TEST_CASE("wgmma operand layout: descriptors name the elements the kernel writes, filter slots are unique") {
  using namespace nova::kernels;
  for (const std::uint32_t address : {0u, 4096u, 200704u})
    for (int row = 0; row < kWgRows; ++row)
      for (int k = 0; k < kWgDepth; ++k)
        REQUIRE(wg_descriptor_element(wg_descriptor(address), row, k) ==
                address + 2u * static_cast<std::uint32_t>(wg_operand_offset(row, k)));
  // Every accumulator element of m64n16 has one owner.
  std::vector<int> owners(static_cast<std::size_t>(kWgRows) * 16, 0);
  for (int thread = 0; thread < 128; ++thread)
    for (int d = 0; d < 8; ++d) ++owners[static_cast<std::size_t>(wg_accumulator_row(thread, d) * 16 + wg_accumulator_column(thread, d))];
  CHECK(std::count(owners.begin(), owners.end(), 1) == static_cast<long>(owners.size()));
  const int n = 6, K = 72, C = 40;
  std::vector<int> seen(static_cast<std::size_t>(fused_wg_filter_elements(n, K, C)), 0);
  for (int xi = 0; xi < n * n; ++xi)
    for (int k = 0; k < fused_wg_padded_outputs(K); ++k)
      for (int c = 0; c < fused_padded_channels(C); ++c) ++seen[static_cast<std::size_t>(fused_wg_filter_index(n, xi, k, c, C))];
  CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<long>(seen.size()));
  // 16 tiles where two V slots of every channel fit, 8 where only half as many tiles do, else none.
  CHECK(fused_wg_tiles(6, 4, 64, 64, 227 * 1024) == 16);
  CHECK(fused_wg_tiles(6, 4, 128, 128, 227 * 1024) == 8);
  CHECK(fused_wg_tiles(6, 4, 256, 64, 227 * 1024) == 0);
  CHECK(fused_wg_tiles(4, 2, 256, 256, 227 * 1024) == 8);
  CHECK(fused_wg_tiles(8, 6, 16, 16, 227 * 1024) == 0);
  // Tile groups are sized with a staging of its own whatever K: at C = 80 two V slots of 16 tiles and three
  // U stages fit (221,824 bytes) only without it, which K = 64 would stage in a slot.
  CHECK(fused_wg_tiles(6, 4, 80, 64, 227 * 1024) == 8);
  // F(4,3), C = 64, 16 tiles: the header (640 bytes), two V slots (147,456), staging (33,024 in either layout)
  // and 12,288 bytes a U stage within 232,448; with K <= 64 the staging lies in a V slot (36,864 elements
  // against 16,512), two stages more. C = 32 leaves room for the most.
  using nova::kernels::fused_wg_u_stages;
  for (const Layout layout : {Layout::nchw, Layout::nhwc}) {
    CHECK(fused_wg_u_stages(6, 4, 64, 128, 16, layout, 227 * 1024) == 4);
    CHECK(fused_wg_u_stages(6, 4, 64, 64, 16, layout, 227 * 1024) == 6);
    CHECK(fused_wg_layout(6, 4, 64, 64, 16, layout, 6).staging_in_slot);
    CHECK_FALSE(fused_wg_layout(6, 4, 64, 65, 16, layout, 6).staging_in_slot);
    CHECK_FALSE(fused_wg_layout(6, 4, 64, 64, 16, layout, 6, nova::kernels::WgStaging::own_buffer).staging_in_slot);
    CHECK_FALSE(fused_wg_layout(6, 4, 16, 16, 16, layout, 6).staging_in_slot);  // a slot of 9,216 elements
  }
  CHECK(fused_wg_u_stages(6, 4, 32, 128, 16, Layout::nchw, 227 * 1024) == nova::kernels::kWgMaxUStages);
  // A launch whose blocks take 8 tile groups of 16 or more keeps its shared memory within 195 KB where that
  // leaves 4 stages: C = K = 64 at VGG-16 64@224 batch 32 (6,272 groups, 132 blocks) and batch 8 (1,568) runs
  // 4 (197,248 bytes); batch 1 (196 groups) and ResNet-50 64@56 batch 32 (392) keep 6; C = 48 (two 55,296-byte
  // slots) goes from 8 to 7 (197,248 bytes); groups of 8 (C = K = 128, 5 stages), F(2,3) (8 stages in
  // 131,712 bytes) and C = K = 64 with K = 128's staging (4) never change.
  using nova::kernels::fused_wg_launch_u_stages;
  for (const Layout layout : {Layout::nchw, Layout::nhwc}) {
    CHECK(fused_wg_launch_u_stages(6, 4, 64, 64, 16, layout, 227 * 1024, 100352, 132) == 4);
    CHECK(fused_wg_launch_u_stages(6, 4, 64, 64, 16, layout, 227 * 1024, 25088, 132) == 4);
    CHECK(fused_wg_launch_u_stages(6, 4, 64, 64, 16, layout, 227 * 1024, 3136, 132) == 6);
    CHECK(fused_wg_launch_u_stages(6, 4, 64, 64, 16, layout, 227 * 1024, 6272, 132) == 6);
    CHECK(fused_wg_launch_u_stages(6, 4, 48, 48, 16, layout, 227 * 1024, 100352, 132) == 7);
    CHECK(fused_wg_launch_u_stages(6, 4, 128, 128, 8, layout, 227 * 1024, 25088, 132) ==
          fused_wg_u_stages(6, 4, 128, 128, 8, layout, 227 * 1024));
    CHECK(fused_wg_launch_u_stages(4, 2, 64, 64, 16, layout, 227 * 1024, 401408, 132) == nova::kernels::kWgMaxUStages);
    CHECK(fused_wg_launch_u_stages(6, 4, 64, 128, 16, layout, 227 * 1024, 100352, 132) == 4);
    CHECK(fused_wg_layout(6, 4, 64, 64, 16, layout, 4).bytes == 197248);
  }
  // Every V slot, U stage and the staging start on a 128-byte boundary.
  CHECK(nova::kernels::kWgHeaderBytes % 128 == 0);
  for (const int side : {4, 6})
    for (const int channels : {3, 24, 64, 130})
      for (const int tiles : {8, 16}) {
        const auto l = nova::kernels::fused_wg_layout(side, side - 2, channels, 128, tiles, Layout::nchw, 3);
        CHECK((l.v_slot * 2) % 128 == 0);
        CHECK((l.u_stage * 2) % 128 == 0);
      }
  // The staged outputs: each (tile, pixel, channel) its own element of the buffer, and in NHWC each
  // store of a consumer warp (one accumulator register and pixel) within one access of the 32 banks.
  for (const Layout layout : {Layout::nhwc, Layout::nchw})
    for (const int tiles : {8, 16}) {
      const int m = 4, size = nova::kernels::fused_wg_layout(6, m, 64, 64, tiles, layout, 3).staging;
      std::vector<int> staged(static_cast<std::size_t>(size), 0);
      for (int t = 0; t < tiles; ++t)
        for (int p = 0; p < m * m; ++p)
          for (int kl = 0; kl < kWgRows; ++kl) {
            const int at = layout == Layout::nhwc ? fused_wg_staging_offset<Layout::nhwc>(t, p, kl, m, tiles)
                                                  : fused_wg_staging_offset<Layout::nchw>(t, p, kl, m, tiles);
            REQUIRE(at >= 0);
            REQUIRE(at < size);
            ++staged[static_cast<std::size_t>(at)];
          }
      CHECK(std::count(staged.begin(), staged.end(), 1) == tiles * m * m * kWgRows);
      if (layout == Layout::nchw) continue;
      for (int warp = 0; warp < 4; ++warp)
        for (int d = 0; d < tiles / 2; ++d)
          for (int p = 0; p < m * m; ++p) {
            std::map<int, std::set<int>> words_of_bank;
            for (int lane = 0; lane < 32; ++lane) {
              const int thread = warp * 32 + lane;
              const int word = fused_wg_staging_offset<Layout::nhwc>(wg_accumulator_column(thread, d), p,
                                                                     wg_accumulator_row(thread, d), m, tiles) / 2;
              words_of_bank[word % 32].insert(word);
            }
            for (const auto& [bank, words] : words_of_bank) CHECK(words.size() == 1);
          }
    }
  CHECK(fused_uses_wgmma(FusedDevice{227 * 1024, 132, true}, 6, 4, 64, 64));
  CHECK_FALSE(fused_uses_wgmma(FusedDevice{227 * 1024, 132, false}, 6, 4, 64, 64));
}
