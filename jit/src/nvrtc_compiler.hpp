// NVRTC, opened at run time (dlopen): a machine without the CUDA toolkit still loads and runs
// transforms on the CPU, and libnova_jit needs no CUDA library to link.
#pragma once

#include "compile_cache.hpp"

#include "nova/codegen/codegen.hpp"

#include <string>
#include <string_view>

namespace nova::jit {

struct CompileResult {
  std::string image;  // cubin; empty on failure
  std::string error;  // what failed (the compiler's log), when image is empty
  bool cached = false;
  double ms = 0;      // compile, or cache read
};

// The GPU code of `source` for `arch` ("sm_90a", "sm_80"), from `cache` when an entry for the same
// source, kernel headers, architecture and NVRTC version is there, else compiled and stored.
CompileResult compile_nvrtc(const codegen::RuntimeSource& source, std::string_view arch, CompileCache& cache);

// The NVRTC version as "13.0", or empty with `error` set when libnvrtc cannot be opened.
std::string nvrtc_version(std::string& error);

}  // namespace nova::jit
