// Fuzz target: the config reader (every tool reads configs through it). Any input must end in a
// Config or an InputError naming the problem: no crash, hang, other exception or sanitizer report.
// Small configs that parse are also re-verified exactly, so the verifier sees hostile matrices.
#include "nova/exact/config_json.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > nova::exact::kMaxConfigBytes) return 0;  // read_text_file refuses these before parsing
  try {
    const nova::exact::Config config = nova::exact::parse_config(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
    if (config.transform.tile.n() <= 6) (void)nova::exact::verify_config(config);
  } catch (const nova::exact::InputError&) {
  }
  return 0;
}
