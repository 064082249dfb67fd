#include "emit.hpp"
#include "nova/codegen/float_literal.hpp"
#include "nova/exact/report.hpp"

#include <sstream>

namespace nova::codegen::detail {
namespace {

// A matrix as a row-major double table, one matrix row per line.
std::string double_table(const char* name, const RationalMatrix& m) {
  std::ostringstream out;
  out << "constexpr double " << name << "[] = {\n";
  const std::vector<double> values = row_major_doubles(m);
  for (std::size_t e = 0; e < values.size(); ++e)
    out << (e % m.cols() == 0 ? "    " : "") << double_literal(values[e]) << ((e + 1) % m.cols() ? ", " : ",\n");
  out << "};\n";
  return out.str();
}

}  // namespace

std::string emit_all_transforms(const std::vector<Source>& sources) {
  std::ostringstream out;
  out << banner("Every generated transform, as headers and as one type list.", sources) << "#pragma once\n\n";
  for (const Source& s : sources) out << "#include \"" << transforms_file_name(s.config.name) << "\"\n";
  out << "\nnamespace nova::generated {\n\n"
      << "// For generic code that instantiates every transform (tests, a CPU path templated on it).\n"
      << "template <class... Transforms>\nstruct TransformList {};\n\n"
      << "using AllTransforms = TransformList<";
  for (std::size_t i = 0; i < sources.size(); ++i)
    out << (i ? ",\n                                    " : "") << sources[i].config.name << "::Transform";
  out << ">;\n\n}  // namespace nova::generated\n";
  return out.str();
}

std::string emit_registry(const std::vector<Source>& sources) {
  std::ostringstream out;
  out << banner("Registry of every generated transform: host functions, matrices and metrics.", sources)
      << "#include \"nova/kernels/transform_registry.hpp\"\n\n"
      << "#include \"all_transforms.hpp\"\n\n"
      << "#include <array>\n\n"
      << "// GPU builds compile this file with NOVA_GPU_KERNELS=1 beside every <name>_kernels.hip, each of\n"
      << "// which defines its transform's kGpuEntry; CPU builds leave every entry's `gpu` null.\n"
      << "#if NOVA_GPU_KERNELS\n";
  for (const Source& s : sources)
    out << "namespace nova::generated::" << s.config.name << " { extern const kernels::GpuTransformEntry kGpuEntry; }\n";
  out << "#define NOVA_GPU_ENTRY(name) (&::nova::generated::name::kGpuEntry)\n"
      << "#else\n"
      << "#define NOVA_GPU_ENTRY(name) nullptr\n"
      << "#endif\n";
  out << "\nnamespace nova::kernels {\nnamespace {\n\n"
      << "// The matrices of each JSON, every entry correctly rounded to double, row-major.\n";
  for (const Source& s : sources) {
    const exact::Transform& t = s.config.transform;
    out << "\nnamespace " << s.config.name << " {\n"
        << double_table("kAT", t.AT) << double_table("kG", t.G) << double_table("kBT", t.BT) << "}  // namespace "
        << s.config.name << "\n";
  }
  out << "\nconstexpr TransformEntry kTransforms[] = {\n";
  for (const Source& s : sources) {
    const exact::Config& c = s.config;
    const std::string fn = "&generated::" + c.name + "::";
    const std::vector<TransformStats> stats = transform_stats(c, build_programs(c.transform));  // input, filter, output
    const int input_ops = stats[0].ops_2d.total(), output_ops = stats[2].ops_2d.total();
    out << "    {\n"
        << "        .name = \"" << c.name << "\",\n"
        << "        .m = " << c.transform.tile.m << ",\n"
        << "        .r = " << c.transform.tile.r << ",\n"
        << "        .n = " << c.transform.tile.n() << ",\n"
        << "        .points = \"" << exact::format_points(c.transform.points()) << "\",\n"
        << "        .scaling = \"" << exact::scaling_name(c.transform.scaling) << "\",\n";
    for (const char* type : {"f64", "f32"}) {
      const std::string cpp_type = std::string(type) == "f64" ? "double" : "float";
      for (const char* stage : {"input", "filter", "output"})
        out << "        ." << stage << "_2d_" << type << " = " << fn << stage << "_transform_2d<" << cpp_type << ">,\n";
    }
    out << "        .AT = " << c.name << "::kAT,\n"
        << "        .G = " << c.name << "::kG,\n"
        << "        .BT = " << c.name << "::kBT,\n"
        << "        .kronecker_terms_fp16 = generated::" << c.name << "::Transform::kronecker_terms_fp16,\n"
        << "        .kronecker_terms_bf16 = generated::" << c.name << "::Transform::kronecker_terms_bf16,\n"
        << "        .input_ops = " << input_ops << ",\n"
        << "        .output_ops = " << output_ops << ",\n"
        << "        .amp2d = " << double_literal(c.metrics.amp2d) << ",\n"
        << "        .predicted_error_fp16 = " << double_literal(c.metrics.predicted_error_fp16) << ",\n"
        << "        .gpu = NOVA_GPU_ENTRY(" << c.name << "),\n"
        << "    },\n";
  }
  out << "};\n\n"
      << "// Further names of a transform (its config's \"aliases\"): one set of kernels, several names.\n"
      << "struct Alias {\n"
      << "  std::string_view alias, name;\n"
      << "};\n";
  std::vector<std::pair<std::string, std::string>> aliases;
  for (const Source& s : sources)
    for (const std::string& alias : s.config.aliases) aliases.emplace_back(alias, s.config.name);
  out << "constexpr std::array<Alias, " << aliases.size() << "> kAliases = {{\n";
  for (const auto& [alias, name] : aliases) out << "    {\"" << alias << "\", \"" << name << "\"},\n";
  out << "}};\n\n"
      << "}  // namespace\n\n"
      << "std::span<const TransformEntry> transform_registry() { return kTransforms; }\n\n"
      << "const TransformEntry* find_transform(std::string_view name) {\n"
      << "  for (const Alias& a : kAliases)\n"
      << "    if (name == a.alias) name = a.name;\n"
      << "  for (const TransformEntry& entry : kTransforms)\n"
      << "    if (name == entry.name) return &entry;\n"
      << "  return nullptr;\n"
      << "}\n\n"
      << "}  // namespace nova::kernels\n";
  return out.str();
}

}  // namespace nova::codegen::detail
