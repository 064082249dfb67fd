#include "nova/codegen/codegen.hpp"

#include "emit.hpp"
#include "nova/codegen/sha256.hpp"
#include "nova/exact/heartbeat.hpp"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>

namespace nova::codegen {

using exact::InputError;

Source load_source(const std::filesystem::path& path) {
  const std::string shown = path.lexically_normal().generic_string();
  const std::string bytes = exact::read_text_file(path, exact::kMaxConfigBytes);  // hashed and parsed alike
  Source source{shown, sha256_hex(bytes), exact::parse_config(bytes, shown)};
  const exact::Heartbeat heartbeat("nova-codegen", "verifying " + shown);
  if (const exact::Verification v = exact::verify_config(source.config); !v.ok)
    throw VerificationError(shown + ": exact verification failed: " + v.message);
  return source;
}

std::vector<Source> load_sources(const std::vector<std::filesystem::path>& paths) {
  std::vector<Source> sources;
  for (const auto& path : paths) sources.push_back(load_source(path));
  std::sort(sources.begin(), sources.end(), [](const Source& a, const Source& b) { return a.config.name < b.config.name; });
  // One name per transform: every name (config or alias) once, and every transform under one config.
  std::map<std::string, const Source*> owner;
  for (const Source& s : sources) {
    std::vector<std::string> names{s.config.name};
    names.insert(names.end(), s.config.aliases.begin(), s.config.aliases.end());
    for (const std::string& name : names)
      if (const auto [it, inserted] = owner.emplace(name, &s); !inserted)
        throw InputError(it->second->path + " and " + s.path + " both define '" + name +
                         "' (as a name or an alias): each transform name must come from one file");
  }
  for (std::size_t i = 0; i < sources.size(); ++i)
    for (std::size_t j = i + 1; j < sources.size(); ++j)
      if (exact::same_transform(sources[i].config.transform, sources[j].config.transform))
        throw InputError(sources[i].path + " and " + sources[j].path + " hold the same transform (tile, points and scaling) as " +
                         sources[i].config.name + " and " + sources[j].config.name + ": keep one file and list the other name under its \"aliases\"");
  return sources;
}

TransformPrograms build_programs(const exact::Transform& t) {
  std::vector<std::string> points;
  for (const auto& p : t.points()) points.push_back(exact::to_string(p));
  return {build_linear_program(t.BT, points, {}), build_linear_program(t.G, points, {}),
          build_linear_program(t.AT, {}, points)};
}

std::vector<TransformStats> transform_stats(const exact::Config& config, const TransformPrograms& p) {
  const auto m = static_cast<std::size_t>(config.transform.tile.m), r = static_cast<std::size_t>(config.transform.tile.r);
  const auto n = static_cast<std::size_t>(config.transform.tile.n());
  const int in = static_cast<int>(n), im = static_cast<int>(m), ir = static_cast<int>(r);
  // 2D: the 1D transform on every column, then on every row of the intermediate (docs/design.md §3).
  return {
      {"input  B^T d B", p.input.ops, dense_op_count(n, n), (2 * in) * p.input.ops, (2 * in) * dense_op_count(n, n),
       p.input.sharing},
      {"filter G g G^T", p.filter.ops, dense_op_count(n, r), (ir + in) * p.filter.ops, (ir + in) * dense_op_count(n, r),
       p.filter.sharing},
      {"output A^T M A", p.output.ops, dense_op_count(m, n), (in + im) * p.output.ops, (in + im) * dense_op_count(m, n),
       p.output.sharing},
  };
}

namespace {

const char* sharing_name(Sharing s) {
  switch (s) {
    case Sharing::direct: return "direct";
    case Sharing::row_pairs: return "row butterflies";
    case Sharing::column_pairs: return "column butterflies";
  }
  return "";
}

std::string adds_muls(const OpCount& ops) { return std::to_string(ops.adds) + " + " + std::to_string(ops.muls); }

}  // namespace

std::string format_stats(const std::vector<Source>& sources) {
  std::ostringstream out;
  out << "| config | transform | 1D adds + muls | dense 1D | 2D adds + muls | dense 2D | 2D saved | sharing |\n"
      << "|---|---|---|---|---|---|---|---|\n";
  for (const Source& s : sources) {
    for (const TransformStats& t : transform_stats(s.config, build_programs(s.config.transform))) {
      const double saved = 100.0 * (1.0 - double(t.ops_2d.total()) / double(t.dense_2d.total()));
      out << "| " << s.config.name << " | " << t.transform << " | " << adds_muls(t.ops_1d) << " | " << adds_muls(t.dense_1d)
          << " | " << adds_muls(t.ops_2d) << " | " << adds_muls(t.dense_2d) << " | " << std::fixed << std::setprecision(0)
          << saved << "% | " << sharing_name(t.sharing) << " |\n";
    }
  }
  return out.str();
}

namespace {
void require_sources(const std::vector<Source>& sources) {
  if (sources.empty()) throw InputError("no config given: the registry needs at least one transform");
}
}  // namespace

std::vector<std::string> output_names(const std::vector<Source>& sources) {
  require_sources(sources);
  std::vector<std::string> names;
  for (const Source& s : sources) {
    names.push_back(detail::transforms_file_name(s.config.name));
    names.push_back(detail::kernels_file_name(s.config.name));
  }
  names.push_back("all_transforms.hpp");
  names.push_back("registry.cpp");
  names.push_back("CMakeLists.txt");
  return names;
}

std::vector<GeneratedFile> generate(const std::vector<Source>& sources) {
  require_sources(sources);
  std::vector<GeneratedFile> files;
  for (const Source& s : sources) {
    files.push_back({detail::transforms_file_name(s.config.name),
                     detail::emit_transforms_header(s, build_programs(s.config.transform))});
    files.push_back({detail::kernels_file_name(s.config.name), detail::emit_kernels(s)});
  }
  files.push_back({"all_transforms.hpp", detail::emit_all_transforms(sources)});
  files.push_back({"registry.cpp", detail::emit_registry(sources)});
  files.push_back({"CMakeLists.txt", detail::emit_cmake(sources)});
  return files;
}

void write_files(const std::filesystem::path& out_dir, const std::vector<GeneratedFile>& files) {
  for (const GeneratedFile& f : files) exact::write_text_atomic(out_dir / f.name, f.text);
}

}  // namespace nova::codegen
