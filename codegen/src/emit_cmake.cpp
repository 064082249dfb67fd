#include "emit.hpp"

#include <sstream>

namespace nova::codegen::detail {
namespace {

// The banner with CMake's comment marker instead of C++'s.
std::string cmake_banner(const std::string& title, const std::vector<Source>& sources) {
  std::istringstream in(banner(title, sources));
  std::ostringstream out;
  for (std::string line; std::getline(in, line);) out << (line.starts_with("//") ? "#" + line.substr(2) : line) << "\n";
  return out.str();
}

}  // namespace

std::string emit_cmake(const std::vector<Source>& sources) {
  std::ostringstream out;
  out << cmake_banner("The generated transforms as libraries, added by the project's CMakeLists.txt (NOVA_GENERATED_DIR).",
                      sources)
      << "# nova::generated      the registry and the transform headers, for any C++ compiler\n"
      << "# nova::generated_gpu  the same registry with every transform's GPU kernels (NOVA_ENABLE_CUDA or\n"
      << "#                      NOVA_ENABLE_HIP)\n"
      << "add_library(nova_generated STATIC registry.cpp)\n"
      << "add_library(nova::generated ALIAS nova_generated)\n"
      << "target_include_directories(nova_generated PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})\n"
      << "target_link_libraries(nova_generated PUBLIC nova::kernels)\n"
      << "# Hidden: libnova_runtime links a copy, and a test that links another must not interpose on it.\n"
      << "set_target_properties(nova_generated PROPERTIES CXX_VISIBILITY_PRESET hidden)\n"
      << "nova_set_warnings(nova_generated)\n\n"
      << "if(NOVA_ENABLE_CUDA OR NOVA_ENABLE_HIP)\n"
      << "  set(kernel_sources\n";
  for (const Source& s : sources) out << "    " << kernels_file_name(s.config.name) << "\n";
  out << "  )\n"
      << "  if(NOVA_ENABLE_CUDA)\n"
      << "    # HIP sources; nvcc compiles them as CUDA through nova/kernels/hip_compat.h.\n"
      << "    set_source_files_properties(${kernel_sources} PROPERTIES LANGUAGE CUDA)\n"
      << "    set(gpu_runtime CUDA::cudart)\n"
      << "  else()\n"
      << "    # AMD: CMake's HIP language compiles them for CMAKE_HIP_ARCHITECTURES.\n"
      << "    set_source_files_properties(${kernel_sources} PROPERTIES LANGUAGE HIP)\n"
      << "    set(gpu_runtime hip::host)\n"
      << "  endif()\n"
      << "  add_library(nova_generated_gpu STATIC registry.cpp ${kernel_sources})\n"
      << "  add_library(nova::generated_gpu ALIAS nova_generated_gpu)\n"
      << "  target_compile_definitions(nova_generated_gpu PRIVATE NOVA_GPU_KERNELS=1)\n"
      << "  target_include_directories(nova_generated_gpu PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})\n"
      << "  target_link_libraries(nova_generated_gpu PUBLIC nova::kernels ${gpu_runtime})\n"
      << "  set_target_properties(nova_generated_gpu PROPERTIES CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden\n"
      << "                                                      HIP_VISIBILITY_PRESET hidden)\n"
      << "  nova_set_warnings(nova_generated_gpu)\n"
      << "endif()\n";
  return out.str();
}

}  // namespace nova::codegen::detail
