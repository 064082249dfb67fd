#include "nova/errlab/tensor_storage.hpp"

#include "vector_clones.hpp"

#include <cmath>
#include <cstddef>

namespace nova::errlab {
namespace {

// max|x| over channels [first, last); NaN if any of the values is NaN.
double max_abs(const TensorView& t, int first, int last) {
  double m = 0;
  for (int p = 0; p < t.positions; ++p)
    for (int c = first; c < last; ++c) {
      const double* row = t.data + (static_cast<std::ptrdiff_t>(p) * t.channels + c) * t.inner;
      for (int i = 0; i < t.inner; ++i) {
        const double a = std::abs(row[i]);
        m = (a > m || a != a) ? a : m;
      }
    }
  return m;
}

template <class Round>
NOVA_ERRLAB_VECTOR_CLONES void round_all(double* data, std::ptrdiff_t size, Round round) {
  for (std::ptrdiff_t i = 0; i < size; ++i) data[i] = round(data[i]);
}

void quantize_channel(const TensorView& t, int channel, double scale) {
  for (int p = 0; p < t.positions; ++p) {
    double* row = t.data + (static_cast<std::ptrdiff_t>(p) * t.channels + channel) * t.inner;
    for (int i = 0; i < t.inner; ++i) row[i] = quantize_int8(row[i], scale);
  }
}

}  // namespace

void store(StorageType type, TensorView t) {
  if (type.format == Format::int8) {
    const bool per_channel = type.granularity == Granularity::channel;
    const double tensor_scale = per_channel ? 0.0 : int8_scale(max_abs(t, 0, t.channels));
    for (int c = 0; c < t.channels; ++c) quantize_channel(t, c, per_channel ? int8_scale(max_abs(t, c, c + 1)) : tensor_scale);
    return;
  }
  const std::ptrdiff_t size = static_cast<std::ptrdiff_t>(t.positions) * t.channels * t.inner;
  with_rounding(type.format, [&](auto round) { round_all(t.data, size, round); });
}

}  // namespace nova::errlab
