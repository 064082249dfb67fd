#include "backend.hpp"

namespace nova::runtime {

size_t Backend::workspace_bytes(const ConvShape& s, const TransformEntry& t) const {
  if (fuses(s, t)) return 0;  // V and M stay on chip
  const Tiling tiling = tile_shape(s, t);
  const auto aligned = [](size_t bytes) { return (bytes + 255) / 256 * 256; };  // keeps M 256-byte aligned
  return aligned(static_cast<size_t>(tiling.transformed_input_elements()) * transformed_element_bytes(s.dtype)) +
         static_cast<size_t>(tiling.product_elements()) * static_cast<size_t>(product_element_bytes(s, t));
}

}  // namespace nova::runtime
