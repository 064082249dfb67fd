#include "cpu_backend.hpp"

#include "backend.hpp"
#include "float16.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace nova::runtime::cpu {
namespace {

// Offset of element (n, c, y, x) of an N x C x H x W tensor in the given layout.
int64_t offset(nova_layout_t layout, int64_t c_count, int64_t h, int64_t w, int64_t n, int64_t c, int64_t y, int64_t x) {
  return layout == NOVA_LAYOUT_NCHW ? ((n * c_count + c) * h + y) * w + x : ((n * h + y) * w + x) * c_count + c;
}

float load(const ConvShape& s, const void* x, int64_t index) {
  const Float16Codec* codec = float16_codec(s.dtype);
  return codec ? codec->decode(static_cast<const uint16_t*>(x)[index]) : static_cast<const float*>(x)[index];
}

void store(const ConvShape& s, void* y, int64_t index, double value) {
  const auto v = static_cast<float>(value);
  if (const Float16Codec* codec = float16_codec(s.dtype)) static_cast<uint16_t*>(y)[index] = codec->encode(v);
  else static_cast<float*>(y)[index] = v;
}

// A value of V or U as the GPU stores it: rounded to the 16-bit I/O type, kept in fp32 otherwise.
float stored(const ConvShape& s, float value) {
  const Float16Codec* codec = float16_codec(s.dtype);
  return codec ? codec->decode(codec->encode(value)) : value;
}

double epilogue(double value, const float* bias, int relu, int64_t k) {
  if (bias) value += bias[k];
  return relu && value < 0 ? 0.0 : value;
}

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// U = G g G^T for every (k, c), stored [n*n][K][C]; rounded to the 16-bit dtype if there is one.
void transform_filter(const ConvShape& s, const TransformEntry& t, const float* weights, float* U) {
  const int n = t.n, r = t.r;
  const TileTransforms transforms(t);
  std::vector<float> u(static_cast<std::size_t>(n * n));
  for (int64_t k = 0; k < s.k; ++k)
    for (int64_t c = 0; c < s.c; ++c) {
      transforms.filter(weights + (k * s.c + c) * r * r, u.data());
      for (int xi = 0; xi < n * n; ++xi) U[(xi * s.k + k) * s.c + c] = stored(s, u[static_cast<std::size_t>(xi)]);
    }
}

// profile (nullable) receives the host time of the input transform, GEMM and output transform.
void winograd_forward(const ConvShape& s, const TransformEntry& t, const void* x, const float* U, const float* bias,
                      int relu, void* y, float* workspace, nova_stage_profile_t* profile) {
  using Clock = std::chrono::steady_clock;
  auto lap = [last = Clock::now()]() mutable {
    const auto now = Clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - last).count();
    last = now;
    return ms;
  };
  const Tiling tiling = tile_shape(s, t);
  const TileTransforms transforms(t);
  const int m = t.m, n = t.n, nn = n * n;
  const int64_t P = tiling.tiles;
  float* V = workspace;
  float* M = workspace + tiling.transformed_input_elements();
  std::vector<float> patch(static_cast<std::size_t>(nn)), v(static_cast<std::size_t>(nn)), out(static_cast<std::size_t>(m * m));

  for (int64_t img = 0; img < s.n; ++img)
    for (int64_t th = 0; th < tiling.tiles_h; ++th)
      for (int64_t tw = 0; tw < tiling.tiles_w; ++tw) {
        const int64_t p = (img * tiling.tiles_h + th) * tiling.tiles_w + tw;
        for (int64_t c = 0; c < s.c; ++c) {
          for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
              const int64_t yy = th * m + i - s.pad, xx = tw * m + j - s.pad;
              const bool inside = yy >= 0 && yy < s.h && xx >= 0 && xx < s.w;
              patch[static_cast<std::size_t>(i * n + j)] = inside ? load(s, x, offset(s.layout, s.c, s.h, s.w, img, c, yy, xx)) : 0.0f;
            }
          transforms.input(patch.data(), v.data());
          for (int xi = 0; xi < nn; ++xi) V[(xi * s.c + c) * P + p] = stored(s, v[static_cast<std::size_t>(xi)]);
        }
      }

  if (profile) profile->input_ms = lap();

  for (int xi = 0; xi < nn; ++xi) {  // M_xi (K x P) = U_xi (K x C) V_xi (C x P), fp32 accumulation
    const Eigen::Map<const RowMajor> u_xi(U + xi * s.k * s.c, s.k, s.c);
    const Eigen::Map<const RowMajor> v_xi(V + xi * s.c * P, s.c, P);
    Eigen::Map<RowMajor>(M + xi * s.k * P, s.k, P).noalias() = u_xi * v_xi;
  }
  if (profile) profile->gemm_ms = lap();

  for (int64_t img = 0; img < s.n; ++img)
    for (int64_t th = 0; th < tiling.tiles_h; ++th)
      for (int64_t tw = 0; tw < tiling.tiles_w; ++tw) {
        const int64_t p = (img * tiling.tiles_h + th) * tiling.tiles_w + tw;
        for (int64_t k = 0; k < s.k; ++k) {
          for (int xi = 0; xi < nn; ++xi) patch[static_cast<std::size_t>(xi)] = M[(xi * s.k + k) * P + p];
          transforms.output(patch.data(), out.data());
          for (int i = 0; i < m && th * m + i < s.h_out; ++i)
            for (int j = 0; j < m && tw * m + j < s.w_out; ++j)
              store(s, y, offset(s.layout, s.k, s.h_out, s.w_out, img, k, th * m + i, tw * m + j),
                    epilogue(out[static_cast<std::size_t>(i * m + j)], bias, relu, k));
        }
      }
  if (profile) profile->output_ms = lap();
}

class CpuBackend final : public Backend {
 public:
  // The CPU path keeps fp32 values and rounds them to fp16 or bf16 where the GPU stores those.
  int transformed_element_bytes(nova_dtype_t) const override { return sizeof(float); }
  nova_status_t allocate(size_t bytes, Buffer& out) override {
    out = Buffer(std::malloc(bytes ? bytes : 1), std::free);
    return out ? NOVA_STATUS_SUCCESS : NOVA_STATUS_ALLOCATION_FAILED;
  }
  nova_status_t transform_filter(const ConvShape& s, const TransformEntry& t, const float* weights, void* filter,
                                 void*) override {
    cpu::transform_filter(s, t, weights, static_cast<float*>(filter));
    return NOVA_STATUS_SUCCESS;
  }
  nova_status_t forward(const ConvShape& s, const TransformEntry& t, const void* x, const void* filter, const float* bias,
                        int relu, void* y, void* workspace, nova_stage_profile_t* profile) override {
    winograd_forward(s, t, x, static_cast<const float*>(filter), bias, relu, y, static_cast<float*>(workspace), profile);
    return NOVA_STATUS_SUCCESS;
  }
  nova_status_t zero(void* p, size_t bytes) override {
    std::memset(p, 0, bytes);
    return NOVA_STATUS_SUCCESS;
  }

  nova_status_t synchronize() override { return NOVA_STATUS_SUCCESS; }
};

}  // namespace

void direct_reference(const ConvShape& s, const void* x, const float* weights, const float* bias, int relu, void* y) {
  for (int64_t img = 0; img < s.n; ++img)
    for (int64_t k = 0; k < s.k; ++k)
      for (int64_t oy = 0; oy < s.h_out; ++oy)
        for (int64_t ox = 0; ox < s.w_out; ++ox) {
          double sum = 0;
          for (int64_t c = 0; c < s.c; ++c)
            for (int i = 0; i < s.r; ++i)
              for (int j = 0; j < s.r; ++j) {
                const int64_t yy = oy + i - s.pad, xx = ox + j - s.pad;
                if (yy < 0 || yy >= s.h || xx < 0 || xx >= s.w) continue;
                sum += double{weights[((k * s.c + c) * s.r + i) * s.r + j]} *
                       load(s, x, offset(s.layout, s.c, s.h, s.w, img, c, yy, xx));
              }
          store(s, y, offset(s.layout, s.k, s.h_out, s.w_out, img, k, oy, ox), epilogue(sum, bias, relu, k));
        }
}

}  // namespace nova::runtime::cpu

namespace nova::runtime {

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<cpu::CpuBackend>(); }

}  // namespace nova::runtime
