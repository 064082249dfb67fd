// nova-codegen: verified transform JSON -> unrolled transforms, GPU kernels and the registries
// (docs/design.md §7). Everything here is deterministic: the same sources give the same bytes.
#pragma once

#include "nova/codegen/linear_program.hpp"
#include "nova/exact/config_json.hpp"
#include "nova/kernels/kernel_table.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace nova::codegen {

// A config that has passed exact re-verification, and the file it came from.
struct Source {
  std::string path;    // as given, in generic form ("configs/f6x3_nova.json"); banners print it
  std::string sha256;  // of the file's bytes
  exact::Config config;
};

// A well-formed config whose matrices, identity or metrics do not check out exactly.
class VerificationError : public exact::InputError {
 public:
  using exact::InputError::InputError;
};

// Reads, hashes and re-verifies (exact::verify_config) one JSON. Throws VerificationError, or
// exact::InputError for a file that cannot be read or parsed, naming the file and the problem.
Source load_source(const std::filesystem::path& path);

// Loads every file, sorted by transform name (so argument order does not matter). One name per
// transform: rejects two files that carry the same name or alias, and two files that hold the same
// transform (tile, points, scaling) under different names (one of them belongs in the other's
// "aliases": one set of kernels, two names).
std::vector<Source> load_sources(const std::vector<std::filesystem::path>& paths);

// The three 1D transforms of a config as straight-line programs; the 2D transforms apply them
// along columns, then rows.
struct TransformPrograms {
  LinearProgram input;   // B^T: kN -> kN
  LinearProgram filter;  // G:   kR -> kN
  LinearProgram output;  // A^T: kN -> kM
};
TransformPrograms build_programs(const exact::Transform& transform);

// Operation counts of one transform in 1D and 2D, beside the dense matrix products.
struct TransformStats {
  const char* transform;  // "input B^T d B", ...
  OpCount ops_1d, dense_1d, ops_2d, dense_2d;
  Sharing sharing;
};
std::vector<TransformStats> transform_stats(const exact::Config& config, const TransformPrograms& programs);

// The --stats table (Markdown) for every source.
std::string format_stats(const std::vector<Source>& sources);

struct GeneratedFile {
  std::string name;  // relative to the output folder
  std::string text;
};

// The files `generate` returns, in the same order: per config <name>_transforms.hpp and
// <name>_kernels.hip, then all_transforms.hpp, registry.cpp and CMakeLists.txt.
// Both throw exact::InputError for an empty list (a registry needs at least one transform).
std::vector<std::string> output_names(const std::vector<Source>& sources);
std::vector<GeneratedFile> generate(const std::vector<Source>& sources);

// What a compiler at run time (NVRTC, hipRTC) builds for one group of a transform's kernels: the
// kernel definitions of <name>_kernels.hip (same emitter, no host code), which include the
// transform's header (given here, for the compiler's in-memory headers) and nova/kernels/.
struct RuntimeSource {
  std::string header_name;  // <name>_transforms.hpp
  std::string header;       // its text, as nova-codegen writes it
  std::string kernels;      // the translation unit
  bool has_kernels = false; // false: the transform has no kernels of this group (fused, tiles above 6)
};
RuntimeSource runtime_source(const Source& source, kernels::KernelGroup group);

// Writes each file atomically (temporary file, then rename) under `out_dir`, creating it.
void write_files(const std::filesystem::path& out_dir, const std::vector<GeneratedFile>& files);

}  // namespace nova::codegen
