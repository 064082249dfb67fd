// Emitters of the generated files (private to nova::codegen).
#pragma once

#include "nova/codegen/codegen.hpp"

#include <string>
#include <vector>

namespace nova::codegen::detail {

// Opening comment of every generated file: what it is, its sources with SHA-256, "do not edit".
std::string banner(const std::string& title, const std::vector<Source>& sources, const std::string& extra = {});

std::string transforms_file_name(const std::string& name);  // <name>_transforms.hpp
std::string kernels_file_name(const std::string& name);     // <name>_kernels.hip

std::string emit_transforms_header(const Source& source, const TransformPrograms& programs);
std::string emit_kernels(const Source& source);
std::string emit_all_transforms(const std::vector<Source>& sources);
std::string emit_registry(const std::vector<Source>& sources);
std::string emit_cmake(const std::vector<Source>& sources);  // CMakeLists.txt

// The fused convolution (nova/kernels/fused_kernels.hpp) is emitted for tiles up to this side;
// larger ones get a null registry entry.
bool emits_fused(const Source& source);

}  // namespace nova::codegen::detail
