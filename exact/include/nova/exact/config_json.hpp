// The transform JSON of docs/design.md §5 ("nova.transform/1"): writing, strict reading and
// exact re-verification. Every reader error names the offending field.
#pragma once

#include "nova/exact/text_file.hpp"
#include "nova/exact/cook_toom.hpp"
#include "nova/exact/metrics.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace nova::exact {

inline constexpr const char* kSchemaName = "nova.transform/1";

struct Config {
  std::string name;  // transform_name(tile, pointset)
  Transform transform;  // as stored in the file (read) or as built (write)
  Metrics metrics;
  bool verified_2d = false;
  nlohmann::json provenance = nlohmann::json::object();  // tool, objective, seed, command, ...
  // Further names of the same transform (one set of kernels, several names), each following the
  // naming rule for the tile; optional in the JSON. check_aliases() states the rules.
  std::vector<std::string> aliases;
};

// Builds, verifies (1D always, 2D on request) and measures a transform; throws InputError when the
// identity does not hold (which would be a bug in construction, never silently written).
Config make_config(std::string name, Transform transform, bool verify_2d, nlohmann::json provenance);

nlohmann::json to_json(const Config& config);

// Throws InputError unless every alias follows the naming rule for the config's tile, differs from
// its name and appears once.
void check_aliases(const Config& config);

// Strict reader: schema, name, tile, points, scaling, matrix shapes and every entry are checked;
// `source` (a file name) prefixes every message.
Config config_from_json(const nlohmann::json& doc, const std::string& source);
// A config's text: at most kMaxConfigBytes (the largest tile the tools accept needs well under a
// megabyte) and kMaxConfigDepth levels of nesting (a config has five), else InputError.
inline constexpr std::size_t kMaxConfigBytes = std::size_t{16} << 20;
inline constexpr int kMaxConfigDepth = 32;
Config parse_config(const std::string& text, const std::string& source);
Config read_config(const std::filesystem::path& path);  // read_text_file + parse_config

void write_config(const std::filesystem::path& path, const Config& config);
std::string serialise(const Config& config);  // the exact bytes write_config writes

// Rebuilds the transform from the stored points and scaling, compares every matrix entry exactly,
// re-proves the identity and checks the stored metrics. ok == false names the first mismatch.
Verification verify_config(const Config& config);

}  // namespace nova::exact
