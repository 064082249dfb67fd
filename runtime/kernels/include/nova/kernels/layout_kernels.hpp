// NCHW <-> NHWC conversion, so that NCHW images can run the fused kernel, which reads and writes
// NHWC: every image is a rows x cols matrix turned into its cols x rows transpose (NCHW -> NHWC:
// C x HW, NHWC -> NCHW: HW x K). A block moves 64 x 64 tiles through shared memory, so that reads
// and writes both run along rows. HIP source like transform_kernels.hpp, and run on the CPU by the
// same emulation in the tests.
#pragma once

#include "nova/kernels/transform_kernels.hpp"

namespace nova::kernels {

inline constexpr int kTransposeTile = 64;
inline constexpr int kTransposeThreads = 256;  // 8 rows of 32 threads, each thread 2 columns of a tile row

// Two neighbouring elements as one access.
template <typename T>
struct alignas(2 * sizeof(T)) TransposePair {
  T a, b;
};

// Grid: x over column tiles, y over (image, row tile) pairs, strided by gridDim.y. Where a row of
// the input has an even length, a lane reads its two columns as one pair; where a row of the
// output does, it writes two as one (both tensors aligned to a pair, which the caller checks):
// half the memory instructions, and a warp's access covers whole 128-byte lines (with 2-byte
// accesses throughout, the conversion ran at 43 % of copy bandwidth on an H200).
template <typename T>
__global__ void __launch_bounds__(kTransposeThreads) transpose_images(const T* __restrict__ in, T* __restrict__ out,
                                                                      int rows, int cols, int images) {
  constexpr int kLanes = 32, kRowStep = kTransposeThreads / kLanes, kPasses = kTransposeTile / kRowStep;
  static_assert(kTransposeTile == 2 * kLanes, "a lane covers two columns of a tile row");
  using Pair = TransposePair<T>;
  __shared__ T tile[kTransposeTile][kTransposeTile + 1];  // + 1: column reads hit distinct banks
  const int lane = static_cast<int>(threadIdx.x) % kLanes, row = static_cast<int>(threadIdx.x) / kLanes;
  const int col0 = static_cast<int>(blockIdx.x) * kTransposeTile;
  const bool paired_reads = cols % 2 == 0, paired_writes = rows % 2 == 0;
  const long long row_tiles = (rows + kTransposeTile - 1LL) / kTransposeTile, jobs = row_tiles * images;
  // Calls move(a, b, pair) for this thread's cells of a tile whose rows end at a_end and columns
  // at b_end: rows row + i kRowStep, at the column pair 2 lane (pair; b_end is then even, so a
  // pair lies inside or outside) or at columns lane and lane + 32.
  const auto each_cell = [&](int a_end, int b_end, bool paired, auto move) {
#pragma unroll
    for (int i = 0; i < kPasses; ++i) {
      const int a = row + i * kRowStep;
      if (a >= a_end) continue;
      if (paired) {
        if (2 * lane < b_end) move(a, 2 * lane, true);
      } else {
#pragma unroll
        for (int j = 0; j < 2; ++j)
          if (lane + j * kLanes < b_end) move(a, lane + j * kLanes, false);
      }
    }
  };
  for (long long job = blockIdx.y; job < jobs; job += gridDim.y) {
    const long long image = static_cast<long long>(rows) * cols * (job / row_tiles);
    const int row0 = static_cast<int>(job % row_tiles) * kTransposeTile;
    // Reads run along input rows (a tile row r, column l), writes along output rows (tile column
    // c, row l): the same walk over this thread's cells with the roles of rows and columns swapped.
    each_cell(rows - row0, cols - col0, paired_reads, [&](int r, int l, bool pair) {
      const long long at = image + static_cast<long long>(row0 + r) * cols + col0 + l;
      if (pair) {
        const Pair p = *reinterpret_cast<const Pair*>(in + at);
        tile[r][l] = p.a, tile[r][l + 1] = p.b;
      } else {
        tile[r][l] = in[at];
      }
    });
    __syncthreads();
    each_cell(cols - col0, rows - row0, paired_writes, [&](int c, int l, bool pair) {
      const long long at = image + static_cast<long long>(col0 + c) * rows + row0 + l;
      if (pair) *reinterpret_cast<Pair*>(out + at) = Pair{tile[l][c], tile[l + 1][c]};
      else out[at] = tile[l][c];
    });
    __syncthreads();  // the next job overwrites the tile
  }
}

// Blocks of a launch: every column tile, and (image, row tile) pairs up to the grid's y limit.
inline dim3 transpose_grid(int rows, int cols, int images) {
  const long long jobs = (rows + kTransposeTile - 1LL) / kTransposeTile * images;
  return dim3(static_cast<unsigned>((cols + kTransposeTile - 1LL) / kTransposeTile),
              static_cast<unsigned>(jobs < 65535 ? jobs : 65535));
}

#ifndef NOVA_KERNEL_EMULATION
// `in` and `out` aligned to two elements.
template <typename T>
hipError_t launch_transpose_images(const T* in, T* out, int rows, int cols, int images, hipStream_t stream) {
  if (rows <= 0 || cols <= 0 || images <= 0) return hipSuccess;
  transpose_images<T><<<transpose_grid(rows, cols, images), kTransposeThreads, 0, stream>>>(in, out, rows, cols, images);
  return hipGetLastError();
}
#endif

}  // namespace nova::kernels
