// The fixed cost of one forward in graph replay, as tools/device/bench_conv.cu times it (events around a graph
// launch, median of 200 after warm-up): a graph of one empty kernel, first of one block of one warp, then in the
// wgmma fused kernel's launch shape (one block an SM of 384 threads, 232,448 bytes of dynamic shared memory, a
// 128-byte __grid_constant__ parameter beside the arguments), then that kernel writing one word of its shared memory.
// What a forward of a tiny shape costs beyond it is the kernel's own work.
//   nvcc -O3 -std=c++17 -arch=sm_90a tools/device/launch_floor.cu -o launch_floor && ./launch_floor
#include "check.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

struct alignas(128) Map {
  unsigned char bytes[128];
};
struct Args {
  const void* pointers[5];
  int values[40];
};

__global__ void empty() {}
__global__ void __launch_bounds__(384, 1) shaped(const __grid_constant__ Args args, const __grid_constant__ Map map, int touch) {
  extern __shared__ int shared[];
  if (touch && threadIdx.x == 0) shared[blockIdx.x] = args.values[0] + map.bytes[0];
}

template <class Launch>
double graph_median_us(cudaStream_t stream, Launch launch) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  launch();
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> times;
  for (int i = 0; i < 210; ++i) {
    CHECK(cudaEventRecord(a, stream));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaEventRecord(b, stream));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (i >= 10) times.push_back(ms);
  }
  std::nth_element(times.begin(), times.begin() + static_cast<long>(times.size() / 2), times.end());
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  return 1e3 * times[times.size() / 2];
}

int main() {
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  constexpr int kShared = 232448;
  CHECK(cudaFuncSetAttribute(shaped, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared));
  Args args{};
  Map map{};
  std::printf("empty kernel, 1 block of 32 threads: %.2f us\n", graph_median_us(stream, [&] { empty<<<1, 32, 0, stream>>>(); }));
  for (int blocks : {1, 131, 132})
    for (int touch : {0, 1})
      std::printf("fused wgmma shape, %d blocks of 384 threads, %d B shared, touched %d: %.2f us\n", blocks, kShared, touch,
                  graph_median_us(stream, [&] { shaped<<<blocks, 384, kShared, stream>>>(args, map, touch); }));
  CHECK(cudaGetLastError());
  return 0;
}
