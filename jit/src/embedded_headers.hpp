// The kernel headers (runtime/kernels/include/nova/kernels/) as they were when libnova_jit was built,
// handed to NVRTC as in-memory headers: a loaded transform compiles against the same kernel loops as
// the built-in ones, with no source tree at run time. Defined in the generated embedded_headers.cpp.
#pragma once

#include <span>
#include <string>

namespace nova::jit {

struct EmbeddedHeader {
  const char* name;  // as the sources include it: "nova/kernels/fused_kernels.hpp"
  const char* text;
};

std::span<const EmbeddedHeader> kernel_headers();
const std::string& kernel_headers_sha256();  // of every name and text: the kernel template's version

}  // namespace nova::jit
