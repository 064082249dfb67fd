#include "emit.hpp"
#include "nova/codegen/float_literal.hpp"
#include "nova/discover/report.hpp"

#include <sstream>

namespace nova::codegen::detail {
namespace {

// A matrix as a row-major double table, one matrix row per line.
std::string double_table(const char* name, const RationalMatrix& m) {
  std::ostringstream out;
  out << "constexpr double " << name << "[] = {\n";
  for (std::size_t i = 0; i < m.rows(); ++i) {
    out << "    ";
    for (std::size_t j = 0; j < m.cols(); ++j) out << double_literal(round_to_double(m(i, j))) << (j + 1 < m.cols() ? ", " : ",\n");
  }
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
      << "#include \"nova/runtime/transform_registry.hpp\"\n\n"
      << "#include \"all_transforms.hpp\"\n";
  out << "\nnamespace nova::runtime {\nnamespace {\n\n"
      << "// The matrices of each JSON, every entry correctly rounded to double, row-major.\n";
  for (const Source& s : sources) {
    const discover::Transform& t = s.config.transform;
    out << "\nnamespace " << s.config.name << " {\n"
        << double_table("kAT", t.AT) << double_table("kG", t.G) << double_table("kBT", t.BT) << "}  // namespace "
        << s.config.name << "\n";
  }
  out << "\nconstexpr TransformEntry kTransforms[] = {\n";
  for (const Source& s : sources) {
    const discover::Config& c = s.config;
    const std::string fn = "&generated::" + c.name + "::";
    const std::vector<TransformStats> stats = transform_stats(c, build_programs(c.transform));  // input, filter, output
    const int input_ops = stats[0].ops_2d.total(), output_ops = stats[2].ops_2d.total();
    out << "    {\n"
        << "        .name = \"" << c.name << "\",\n"
        << "        .m = " << c.transform.tile.m << ",\n"
        << "        .r = " << c.transform.tile.r << ",\n"
        << "        .n = " << c.transform.tile.n() << ",\n"
        << "        .points = \"" << discover::format_points(c.transform.points()) << "\",\n"
        << "        .scaling = \"" << discover::scaling_name(c.transform.scaling) << "\",\n";
    for (const char* type : {"f64", "f32"}) {
      const std::string cpp_type = std::string(type) == "f64" ? "double" : "float";
      for (const char* stage : {"input", "filter", "output"})
        out << "        ." << stage << "_2d_" << type << " = " << fn << stage << "_transform_2d<" << cpp_type << ">,\n";
    }
    out << "        .AT = " << c.name << "::kAT,\n"
        << "        .G = " << c.name << "::kG,\n"
        << "        .BT = " << c.name << "::kBT,\n"
        << "        .input_ops = " << input_ops << ",\n"
        << "        .output_ops = " << output_ops << ",\n"
        << "        .amp2d = " << double_literal(c.metrics.amp2d) << ",\n"
        << "        .predicted_error_fp16 = " << double_literal(c.metrics.predicted_error_fp16) << ",\n"
        << "    },\n";
  }
  out << "};\n\n}  // namespace\n\n" << registry_accessors("TransformEntry", "kTransforms", "transform_registry", "find_transform");
  return out.str();
}

std::string registry_accessors(const std::string& entry_type, const std::string& table, const std::string& list_function,
                               const std::string& find_function) {
  return "std::span<const " + entry_type + "> " + list_function + "() { return " + table + "; }\n\n" + "const " +
         entry_type + "* " + find_function + "(std::string_view name) {\n" + "  for (const " + entry_type +
         "& entry : " + table + ")\n" + "    if (name == entry.name) return &entry;\n" + "  return nullptr;\n" +
         "}\n\n" + "}  // namespace nova::runtime\n";
}

}  // namespace nova::codegen::detail
