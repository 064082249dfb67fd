// fp16 values as the runtime's API takes them on the host: IEEE binary16 bit patterns (uint16_t),
// converted with the compiler's _Float16 (round to nearest even).
#pragma once

#include <cstdint>
#include <cstring>

namespace nova::test {

inline uint16_t half_bits(float v) {
  const _Float16 h = static_cast<_Float16>(v);
  uint16_t bits;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
}

inline float from_half_bits(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, sizeof h);
  return static_cast<float>(h);
}

}  // namespace nova::test
