#include "nvrtc_compiler.hpp"

#include "embedded_headers.hpp"

#include "nova/codegen/sha256.hpp"

#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <vector>

#if NOVA_HAVE_NVRTC_HEADER
#include <nvrtc.h>
#endif

namespace nova::jit {
namespace {

#if NOVA_HAVE_NVRTC_HEADER
// The entry points libnova_jit uses, typed by nvrtc.h.
struct Nvrtc {
  decltype(&nvrtcVersion) version = nullptr;
  decltype(&nvrtcCreateProgram) create = nullptr;
  decltype(&nvrtcDestroyProgram) destroy = nullptr;
  decltype(&nvrtcCompileProgram) compile = nullptr;
  decltype(&nvrtcGetProgramLogSize) log_size = nullptr;
  decltype(&nvrtcGetProgramLog) log = nullptr;
  decltype(&nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&nvrtcGetCUBIN) cubin = nullptr;
  decltype(&nvrtcGetErrorString) error_string = nullptr;
  std::string open_error;  // why it could not be opened; empty when it was
};

template <class F>
bool bind(void* library, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(library, name));
  return f != nullptr;
}

// Where cuda_fp16.h and libcu++ (cccl) are: $NOVA_CUDA_INCLUDE, $CUDA_HOME/include, or the
// toolkit this library was built against.
std::string cuda_include_dir() {
  if (const char* dir = std::getenv("NOVA_CUDA_INCLUDE"); dir && *dir) return dir;
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) return std::string(home) + "/include";
  return NOVA_CUDA_INCLUDE_DIR;
}

const Nvrtc& nvrtc() {
  static const Nvrtc loaded = [] {
    Nvrtc n;
    // $NOVA_NVRTC_LIBRARY; else the toolkit's, as the dynamic linker finds it; else beside the headers.
    const std::string beside_headers = cuda_include_dir() + "/../lib64/" + NOVA_NVRTC_SONAME;
    void* library = nullptr;
    const char* override = std::getenv("NOVA_NVRTC_LIBRARY");
    for (const char* name : {override, NOVA_NVRTC_SONAME, beside_headers.c_str()})
      if (name && *name && (library = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!library) {
      n.open_error = std::string("NVRTC is not available (") + NOVA_NVRTC_SONAME +
                     " not found on the library path nor in " + beside_headers + "; set NOVA_NVRTC_LIBRARY)";
      return n;
    }
    if (!bind(library, "nvrtcVersion", n.version) || !bind(library, "nvrtcCreateProgram", n.create) ||
        !bind(library, "nvrtcDestroyProgram", n.destroy) || !bind(library, "nvrtcCompileProgram", n.compile) ||
        !bind(library, "nvrtcGetProgramLogSize", n.log_size) || !bind(library, "nvrtcGetProgramLog", n.log) ||
        !bind(library, "nvrtcGetCUBINSize", n.cubin_size) || !bind(library, "nvrtcGetCUBIN", n.cubin) ||
        !bind(library, "nvrtcGetErrorString", n.error_string))
      n.open_error = "the NVRTC library found lacks an entry point libnova_jit needs";
    return n;
  }();
  return loaded;
}

// NVRTC has no C++ standard library: these stand in for the few headers nova/kernels/ includes,
// from libcu++ (cuda::std), which the toolkit ships for device code.
struct StandIn {
  const char* name;
  const char* text;
};
constexpr StandIn kStandardHeaders[] = {
    {"type_traits", "#pragma once\n#include <cuda/std/type_traits>\nnamespace std { using namespace cuda::std; }\n"},
    {"utility", "#pragma once\n#include <cuda/std/utility>\nnamespace std { using namespace cuda::std; }\n"},
    {"cstdint", "#pragma once\n#include <cuda/std/cstdint>\nnamespace std { using namespace cuda::std; }\n"},
    {"cstring", "#pragma once\n#include <cuda/std/cstring>\nnamespace std { using namespace cuda::std; }\n"},
    {"climits", "#pragma once\n#include <cuda/std/climits>\n"},
};

std::string program_log(const Nvrtc& n, nvrtcProgram program) {
  size_t size = 0;
  if (n.log_size(program, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  if (n.log(program, log.data()) != NVRTC_SUCCESS) return {};
  log.resize(size - 1);
  return log;
}
#endif

}  // namespace

std::string nvrtc_version(std::string& error) {
#if NOVA_HAVE_NVRTC_HEADER
  const Nvrtc& n = nvrtc();
  int major = 0, minor = 0;
  if (!n.open_error.empty()) error = n.open_error;
  else if (n.version(&major, &minor) != NVRTC_SUCCESS) error = "nvrtcVersion failed";
  else return std::to_string(major) + "." + std::to_string(minor);
#else
  error = "libnova_jit was built without nvrtc.h (no CUDA toolkit at build time): it cannot compile GPU kernels";
#endif
  return {};
}

CompileResult compile_nvrtc(const codegen::RuntimeSource& source, std::string_view arch, CompileCache& cache) {
  CompileResult out;
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed_ms = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  const std::string version = nvrtc_version(out.error);
  if (version.empty()) return out;
#if NOVA_HAVE_NVRTC_HEADER
  const std::string include = cuda_include_dir();
  const std::vector<std::string> options = {"--gpu-architecture=" + std::string(arch), "-std=c++20", "-default-device",
                                            "-I" + include, "-I" + include + "/cccl"};
  // Everything the code depends on: the compiler, its options, the kernel headers and the source.
  std::string identity = "nova-jit/1\nnvrtc " + version + "\n";
  for (const std::string& o : options) identity += o + "\n";
  identity += kernel_headers_sha256() + "\n" + source.header + "\n" + source.kernels;
  const std::string key = codegen::sha256_hex(identity);
  if (std::optional<std::string> hit = cache.get(key)) {
    out.image = std::move(*hit);
    out.cached = true;
    out.ms = elapsed_ms();
    return out;
  }

  const Nvrtc& n = nvrtc();
  std::vector<const char*> names, texts;
  for (const EmbeddedHeader& h : kernel_headers()) names.push_back(h.name), texts.push_back(h.text);
  for (const StandIn& h : kStandardHeaders) names.push_back(h.name), texts.push_back(h.text);
  names.push_back(source.header_name.c_str()), texts.push_back(source.header.c_str());
  nvrtcProgram program = nullptr;
  if (const nvrtcResult r = n.create(&program, source.kernels.c_str(), "nova_runtime_source.cu",
                                     static_cast<int>(names.size()), texts.data(), names.data());
      r != NVRTC_SUCCESS) {
    out.error = std::string("nvrtcCreateProgram: ") + n.error_string(r);
    return out;
  }
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  const nvrtcResult compiled = n.compile(program, static_cast<int>(argv.size()), argv.data());
  size_t size = 0;
  if (compiled != NVRTC_SUCCESS || n.cubin_size(program, &size) != NVRTC_SUCCESS || size == 0) {
    out.error = std::string("NVRTC (") + n.error_string(compiled) + ") for " + std::string(arch) + ":\n" +
                program_log(n, program);
  } else {
    out.image.resize(size);
    if (n.cubin(program, out.image.data()) != NVRTC_SUCCESS) {
      out.image.clear();
      out.error = "nvrtcGetCUBIN failed";
    }
  }
  n.destroy(&program);
  if (!out.image.empty()) cache.put(key, out.image);
  out.ms = elapsed_ms();
#else
  (void)source, (void)arch, (void)cache;
#endif
  return out;
}

}  // namespace nova::jit
