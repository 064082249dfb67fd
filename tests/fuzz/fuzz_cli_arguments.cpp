// Fuzz target: the parsers behind nova-discover's and nova-errlab's options. The input is split at
// the first two newlines into a tile, a point list and a third field that every other option
// parser gets; each must return a value or throw InputError. Small tiles with a parsed point set
// are built and proved exactly, as --points does.
#include "nova/discover/objective.hpp"
#include "nova/discover/snap.hpp"
#include "nova/exact/cook_toom.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

// Runs one parser; InputError is the documented answer to bad text.
template <class Parse>
void parse(Parse&& p) {
  try {
    p();
  } catch (const nova::exact::InputError&) {
  }
}

std::string_view next_field(std::string_view& rest) {
  const std::size_t end = rest.find('\n');
  const std::string_view field = rest.substr(0, end);
  rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  return field;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace nova::exact;
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  const std::string_view tile_text = next_field(rest), points_text = next_field(rest), other = rest;
  parse([&] {
    const TileSize tile = parse_tile(tile_text);
    const std::vector<Rational> finite = finite_points_for_tile(tile, parse_point_list(points_text));
    if (tile.n() <= 8) {
      const Transform t = build_transform(tile, finite, parse_scaling(other.empty() ? "G" : other));
      if (!verify_identity_1d(tile, t.AT, t.G, t.BT).ok) __builtin_trap();  // construction must always verify
    }
  });
  parse([&] { (void)parse_rational(other); });
  parse([&] { (void)parse_point(other); });
  parse([&] { (void)nova::discover::parse_objective(other); });
  parse([&] { (void)nova::discover::parse_dtype(other); });
  (void)unsigned_error(other, UINT64_MAX);
  return 0;
}
