// The GPU transform kernels' tile loops (thread mapping, shared-memory exchange for NHWC, padding,
// clipped border tiles, bias and ReLU) run on the CPU through a small emulation of the GPU's
// threads, and are checked exactly as the GPU check on the device machine checks the real kernels.
#include "support/kernel_emulation.hpp"  // first: it stands in for the GPU built-ins

#include "support/emulated_transforms.hpp"
#include "odd_tile/f5x3_fp16_transforms.hpp"  // generated into the build tree (tests/codegen/CMakeLists.txt)
#include "nova/kernels/transform_kernels.hpp"
#include "nova/kernels/transform_registry.hpp"
#include "../gpu/transform_check.hpp"
#include "nova/codegen/codegen.hpp"
#include "nova/codegen/float_literal.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <utility>

namespace {

using nova::kernels::Layout;
using nova::kernels::TileGrid;
using nova::test::ImageLayout;
using nova::test::Storage;

template <typename T>
std::vector<T> nan_filled(std::size_t count) {
  std::vector<T> v(count);
  std::memset(static_cast<void*>(v.data()), 0xff, count * sizeof(T));  // all-ones bits: NaN in fp16, bf16 and fp32
  return v;
}

template <typename T>
std::vector<T> converted(const std::vector<float>& x) {
  return std::vector<T>(x.begin(), x.end());
}

template <typename T>
std::vector<float> as_float(const std::vector<T>& v) {
  return std::vector<float>(v.begin(), v.end());
}

template <class F>
std::vector<float> with_type(Storage s, F&& f) {
  return nova::test::with_storage_type<__half, hip_bfloat16>(s, std::forward<F>(f));
}

// The input transform as its launcher runs it (launch_input_transform): in tile pairs where
// input_in_tile_pairs says, else a tile (or channel pair) a thread.
template <class Transform, Layout layout, typename T>
void emulated_input(const T* x, T* V, const TileGrid& g) {
  if (nova::kernels::input_in_tile_pairs(layout, Transform::n, g, x, V, sizeof(nova::kernels::StoragePair<T>))) {
    nova::emulation::launch(nova::kernels::tile_pair_blocks(g), nova::kernels::kBlockThreads,
                            [&] { nova::kernels::input_transform_tile_pairs<Transform>(x, V, g); });
    return;
  }
  nova::emulation::launch(nova::kernels::input_blocks(layout, Transform::n, sizeof(T), g),
                          nova::kernels::input_block_threads(layout, Transform::n, sizeof(T)),
                          [&] { nova::kernels::input_transform_tiles<Transform, layout>(x, V, g); });
}

// The output transform as its launcher runs it (launch_output_transform): from a 16-bit M in tile pairs
// where the kernel exists and output_in_tile_pairs says, else a tile (or channel pair) a thread, NCHW
// rows through shared memory where stage_nchw_output says for a GPU of `multiprocessors`.
template <class Transform, Layout layout, typename T, typename TM>
void emulated_output(const TM* M, T* y, const float* bias, int relu, TileGrid g, int multiprocessors) {
  g.staged_output = nova::kernels::stage_nchw_output(layout, g, Transform::m, sizeof(T), multiprocessors) ? 1 : 0;
  if constexpr (!std::is_same_v<TM, float> && nova::kernels::nchw_output_has_tile_pairs(Transform::m))
    if (nova::kernels::output_in_tile_pairs(layout, Transform::m, g, M, y, sizeof(TM))) {
      nova::emulation::launch(nova::kernels::tile_pair_blocks(g), nova::kernels::kBlockThreads,
                              [&] { nova::kernels::output_transform_tile_pairs<Transform>(M, y, bias, relu, g); });
      return;
    }
  nova::emulation::launch(nova::kernels::output_blocks<TM>(layout, Transform::n, g), nova::kernels::kBlockThreads,
                          [&] { nova::kernels::output_transform_tiles<Transform, layout>(M, y, bias, relu, g); });
}

// `multiprocessors`: the GPU's that the output launcher is told (0: NCHW rows through shared memory
// wherever the kernel can; a huge count: nowhere).
template <class Transform>
class EmulatedRunner final : public nova::test::KernelRunner {
 public:
  explicit EmulatedRunner(int multiprocessors) : multiprocessors_(multiprocessors) {}
  std::vector<float> filter(Storage s, const std::vector<float>& w, int K, int C) override {
    return with_type(s, [&](auto t) { return filter_as<decltype(t)>(w, K, C); });
  }
  std::vector<float> input(ImageLayout l, Storage s, const std::vector<float>& x, const nova::test::ConvShape& shape) override {
    return with_type(s, [&](auto t) {
      using T = decltype(t);
      return l == ImageLayout::nchw ? input_as<Layout::nchw, T>(x, shape) : input_as<Layout::nhwc, T>(x, shape);
    });
  }
  std::vector<float> output(ImageLayout l, Storage s, Storage product, const std::vector<float>& M, const float* bias,
                            int relu, const nova::test::ConvShape& shape) override {
    return with_type(s, [&](auto t) {
      using T = decltype(t);
      if constexpr (!std::is_same_v<T, float>)
        if (product != Storage::f32) {
          const std::vector<T> narrow = converted<T>(M);  // exactly representable
          return l == ImageLayout::nchw ? output_as<Layout::nchw, T>(narrow, bias, relu, shape)
                                        : output_as<Layout::nhwc, T>(narrow, bias, relu, shape);
        }
      return l == ImageLayout::nchw ? output_as<Layout::nchw, T>(M, bias, relu, shape)
                                    : output_as<Layout::nhwc, T>(M, bias, relu, shape);
    });
  }

 private:
  static constexpr int nn = Transform::n * Transform::n;
  int multiprocessors_;

  template <typename TU>
  std::vector<float> filter_as(const std::vector<float>& w, int K, int C) {
    const long long filters = static_cast<long long>(K) * C;
    std::vector<TU> U = nan_filled<TU>(static_cast<std::size_t>(nn * filters) + nova::test::kGuard);
    nova::emulation::launch(nova::kernels::filter_blocks(filters), nova::kernels::kBlockThreads,
                            [&] { nova::kernels::filter_transform_tiles<Transform>(w.data(), U.data(), K, C); });
    return as_float(U);
  }

  template <Layout layout, typename T>
  std::vector<float> input_as(const std::vector<float>& x, const nova::test::ConvShape& s) {
    TileGrid g{};
    REQUIRE(nova::kernels::make_tile_grid(Transform::m, Transform::r, s.N, s.C, s.H, s.W, s.pad, g));
    const std::vector<T> image = converted<T>(x);
    std::vector<T> V = nan_filled<T>(static_cast<std::size_t>(nn * s.C * g.tiles) + nova::test::kGuard);
    emulated_input<Transform, layout>(image.data(), V.data(), g);
    return as_float(V);
  }

  template <Layout layout, typename T, typename TM>
  std::vector<float> output_as(const std::vector<TM>& M, const float* bias, int relu, const nova::test::ConvShape& s) {
    TileGrid g{};
    REQUIRE(nova::kernels::make_tile_grid(Transform::m, Transform::r, s.N, s.K, s.H, s.W, s.pad, g));
    std::vector<T> y = nan_filled<T>(static_cast<std::size_t>(s.N) * s.K * g.out_height * g.out_width + nova::test::kGuard);
    emulated_output<Transform, layout>(M.data(), y.data(), bias, relu, g, multiprocessors_);
    return as_float(y);
  }
};

template <class Transform>
void check_emulated(const nova::kernels::TransformEntry& entry, int multiprocessors = 0) {
  // Odd sizes: several tile and channel blocks, partial blocks, clipped border tiles, pad 0 to 2;
  // the next three have channel counts that are multiples of 8 and of 4 only (vector-friendly NHWC)
  // and even output widths: 70 (a multiple of m = 2 only) and 24 (NCHW output rows of a tile in one
  // store for m = 2, 4 and 8; from a 16-bit M in tile pairs for m = 2 and 4, whose 13 rows clip the
  // bottom tiles; as do the widths 24 of pad 0, and 28 for m = 2). Even input widths take the NCHW
  // input in tile pairs, with an odd padding (pad 1) and an even one (0 and 2) where a row holds an
  // even number of tiles; rows of an odd number (F(2,3) at widths 70 and 20; the last shape's 7 tiles
  // of F(4,3) and 5 of F(6,3)) take a tile a thread, which reads patch rows in runs where the padding
  // is 1 (widths 70 and 28).
  const std::vector<nova::test::ConvShape> shapes = {{2, 19, 13, 23, 17, 1}, {1, 5, 33, 40, 9, 0}, {3, 3, 2, 7, 5, 2},
                                                     {3, 16, 24, 9, 11, 1},  {1, 12, 20, 6, 70, 1}, {2, 8, 16, 13, 24, 1},
                                                     {2, 6, 8, 10, 26, 0},   {1, 6, 8, 11, 20, 2},  {2, 5, 6, 9, 28, 1}};
  EmulatedRunner<Transform> runner(multiprocessors);
  for (const nova::test::KernelResult& r : nova::test::check_transform(entry, runner, shapes, 2024)) {
    INFO(Transform::name << " " << r.kernel << " (multiprocessors " << multiprocessors << "): max rel err "
                         << r.max_rel_error << ", err/bound " << r.bound_use << ", non-finite " << r.non_finite
                         << " (fp16 overflow " << r.expected_overflow << "), guard writes " << r.guard_writes);
    CHECK(r.pass());
  }
}

template <class... Transforms>
void check_all(nova::generated::TransformList<Transforms...>, int multiprocessors) {
  const auto registered = [](const char* name) {
    const nova::kernels::TransformEntry* entry = nova::kernels::find_transform(name);
    REQUIRE(entry != nullptr);
    return *entry;
  };
  (check_emulated<Transforms>(registered(Transforms::name), multiprocessors), ...);
}

}  // namespace

TEST_CASE("transform kernels, emulated on the CPU, match the CPU path within the precision model") {
  for (const int multiprocessors : {0, 1 << 30}) check_all(nova::test::EmulatedTransforms{}, multiprocessors);
}

// Each block must store only its own outputs: with the blocks in reverse order, a block that wrote
// into its successor's pixels leaves them wrong (in index order, into its predecessor's).
TEST_CASE("transform kernels, emulated with the blocks in reverse order, match the CPU path") {
  struct Reversed {
    Reversed() { nova::emulation::reverse_block_order = true; }
    ~Reversed() { nova::emulation::reverse_block_order = false; }
  } reversed;
  check_all(nova::test::EmulatedTransforms{}, 0);
}

// An odd tile: a 7 x 7 patch has an odd number of positions, which the channel-pair kernels hold in
// pairs (the last one twice). The check reads the entry's tile sizes, FP64 transforms and matrices
// (for its error bound), filled here as the generated registry fills them, from the same JSON.
TEST_CASE("transform kernels on an odd tile (F(5,3), 7 x 7), emulated, match the CPU path") {
  namespace odd = nova::generated::f5x3_fp16;
  const nova::codegen::Source source = nova::codegen::load_source(NOVA_SOURCE_DIR "/tests/jit/data/f5x3_fp16.json");
  const nova::exact::Transform& exact = source.config.transform;
  const std::vector<double> AT = nova::codegen::row_major_doubles(exact.AT),
                            G = nova::codegen::row_major_doubles(exact.G), BT = nova::codegen::row_major_doubles(exact.BT);
  nova::kernels::TransformEntry entry{};
  entry.name = odd::Transform::name;
  entry.m = odd::Transform::m, entry.r = odd::Transform::r, entry.n = odd::Transform::n;
  entry.input_2d_f64 = &odd::input_transform_2d<double>;
  entry.filter_2d_f64 = &odd::filter_transform_2d<double>;
  entry.output_2d_f64 = &odd::output_transform_2d<double>;
  entry.AT = AT.data(), entry.G = G.data(), entry.BT = BT.data();
  REQUIRE(source.config.name == entry.name);
  REQUIRE(entry.n % 2 == 1);
  check_emulated<odd::Transform>(entry);
}

// An NCHW image not aligned to an element pair runs the input kernel of a tile a thread, which must
// give the same V, bit for bit, as the tile-pair kernel from the same image one element later in an
// aligned buffer (both round the same fp32 transform). Rows of an odd number of tiles never take pairs.
TEST_CASE("NCHW input in tile pairs: an image not aligned to a pair gives the aligned one's V") {
  using Transform = nova::generated::f4x3_standard::Transform;
  TileGrid g{};
  REQUIRE(nova::kernels::make_tile_grid(Transform::m, Transform::r, 2, 5, 10, 16, 1, g));
  const std::size_t elements = 2 * 5 * 10 * 16, nn = Transform::n * Transform::n;
  std::vector<__half> aligned(elements + 2), shifted(elements + 2);
  for (std::size_t i = 0; i < elements; ++i) aligned[i] = shifted[i + 1] = static_cast<__half>(static_cast<float>(i % 23) / 7 - 1);
  REQUIRE(nova::kernels::input_in_tile_pairs(Layout::nchw, Transform::n, g, aligned.data(), aligned.data(), 4));
  REQUIRE_FALSE(nova::kernels::input_in_tile_pairs(Layout::nchw, Transform::n, g, shifted.data() + 1, aligned.data(), 4));
  const auto transform = [&](const __half* x) {
    std::vector<__half> V = nan_filled<__half>(nn * 5 * static_cast<std::size_t>(g.tiles) + nova::test::kGuard);
    emulated_input<Transform, Layout::nchw>(x, V.data(), g);
    return as_float(V);
  };
  const std::vector<float> from_pairs = transform(aligned.data()), from_tiles = transform(shifted.data() + 1);
  CHECK(std::count_if(from_pairs.begin(), from_pairs.end() - nova::test::kGuard, [](float v) { return !std::isfinite(v); }) == 0);
  CHECK(std::all_of(from_pairs.end() - nova::test::kGuard, from_pairs.end(), [](float v) { return std::isnan(v); }));
  CHECK(std::equal(from_pairs.begin(), from_pairs.end() - nova::test::kGuard, from_tiles.begin()));
  TileGrid odd{};  // 7 tiles a row
  REQUIRE(nova::kernels::make_tile_grid(Transform::m, Transform::r, 2, 5, 10, 28, 1, odd));
  CHECK_FALSE(nova::kernels::input_in_tile_pairs(Layout::nchw, Transform::n, odd, aligned.data(), aligned.data(), 4));
}
