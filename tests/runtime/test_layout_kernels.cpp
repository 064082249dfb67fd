// The NCHW <-> NHWC conversion kernel (nova/kernels/layout_kernels.hpp) that the fused path runs
// around its kernel for NCHW images, emulated on the CPU: every element lands where the layouts
// say, for sizes that are not multiples of its 64 x 64 tile and for grids that must stride.
#include "support/kernel_emulation.hpp"  // first: it stands in for the GPU built-ins

#include "nova/kernels/layout_kernels.hpp"

#include <catch2/catch.hpp>

#include <vector>

namespace {

using nova::kernels::kTransposeThreads;
using nova::kernels::transpose_grid;
using nova::kernels::transpose_images;

// Transposes `images` rows x cols matrices with a grid whose y extent is `grid_y` (0: the
// launcher's grid); every output element starts as a value no input holds.
template <typename T>
std::vector<T> transposed(const std::vector<T>& in, int rows, int cols, int images, unsigned grid_y = 0) {
  std::vector<T> out(in.size(), static_cast<T>(-1.0f));
  dim3 grid = transpose_grid(rows, cols, images);
  if (grid_y) grid.y = grid_y;
  nova::emulation::launch(grid, kTransposeThreads,
                          [&] { transpose_images<T>(in.data(), out.data(), rows, cols, images); });
  return out;
}

// image-major rows x cols matrices holding their own index (exact in T: below 2048 for fp16).
template <typename T>
std::vector<T> counting(int rows, int cols, int images) {
  std::vector<T> v(static_cast<std::size_t>(rows) * cols * images);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(static_cast<float>(i));
  return v;
}

template <typename T>
void check_transpose(int rows, int cols, int images, unsigned grid_y = 0) {
  const std::vector<T> in = counting<T>(rows, cols, images);
  const std::vector<T> out = transposed(in, rows, cols, images, grid_y);
  long long wrong = 0;
  for (int n = 0; n < images; ++n)
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        const std::size_t image = static_cast<std::size_t>(n) * rows * cols;
        wrong += out[image + static_cast<std::size_t>(c) * rows + r] != in[image + static_cast<std::size_t>(r) * cols + c];
      }
  CHECK(wrong == 0);
  CHECK(transposed(out, cols, rows, images, grid_y) == in);  // and back
}

}  // namespace

TEST_CASE("layout conversion: every element of every image lands in the transposed position") {
  // Rows and columns of either parity: pairs are read where a row of the input is even, written
  // where a row of the output is.
  SECTION("fp16, NCHW -> NHWC and back, shapes that are not multiples of the tile") {
    check_transpose<__half>(16, 7 * 7, 2);   // C = 16, 7 x 7 images: odd input rows
    check_transpose<__half>(24, 5 * 13, 1);  // 24 channels, 5 x 13
    check_transpose<__half>(16, 10 * 9, 1);  // even both ways
  }
  SECTION("fp32, one image, a single row or column, odd and even sizes") {
    check_transpose<float>(1, 130, 1);
    check_transpose<float>(130, 1, 1);
    check_transpose<float>(65, 129, 1);
    check_transpose<float>(66, 130, 1);
  }
  SECTION("a grid smaller than the (image, row tile) pairs strides over them") {
    check_transpose<float>(80, 36, 5, 1);  // 10 pairs, one block row
    check_transpose<float>(80, 36, 5, 3);
  }
}

TEST_CASE("layout conversion: the grid covers every column tile and caps its y extent") {
  const dim3 small = transpose_grid(128, 200, 2);
  CHECK(small.x == 4);
  CHECK(small.y == 4);  // 2 row tiles x 2 images
  const dim3 large = transpose_grid(64 * 70000, 1, 1);
  CHECK(large.x == 1);
  CHECK(large.y == 65535);
}
