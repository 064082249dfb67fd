// SHA-256 (FIPS 180-4) of a byte string, for the banners that tie generated files to their JSON.
#pragma once

#include <string>
#include <string_view>

namespace nova::codegen {

std::string sha256_hex(std::string_view bytes);  // 64 lower-case hex digits

}  // namespace nova::codegen
