#include "emit.hpp"
#include "nova/codegen/float_literal.hpp"
#include "nova/exact/report.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace nova::codegen::detail {
namespace {

std::string ops_text(const OpCount& ops) {
  return std::to_string(ops.adds) + " adds, " + std::to_string(ops.muls) + " muls";
}

std::string op_count_comment(const std::vector<TransformStats>& stats) {
  std::ostringstream out;
  out << "//\n// Operations (dense matrix products in brackets; a negation is free, see nova-codegen --stats):\n";
  for (const TransformStats& t : stats)
    out << "//   " << t.transform << "  1D " << ops_text(t.ops_1d) << " [" << ops_text(t.dense_1d) << "];  2D "
        << ops_text(t.ops_2d) << " [" << ops_text(t.dense_2d) << "]\n";
  return out.str();
}

// The tables of `storage` that sum exactly to B^T (x) B^T of the config's transform (the Transform's kronecker_*).
kernels::KroneckerTables kronecker_tables(const exact::Config& c, kernels::Storage storage) {
  const std::vector<double> BT = row_major_doubles(c.transform.BT);
  return kernels::fused_wg_kronecker_tables(c.transform.tile.n(), BT.data(), storage);
}

std::string constants_block(const TransformPrograms& p) {
  std::vector<Rational> values;
  for (const LinearProgram* program : {&p.input, &p.filter, &p.output})
    for (const Rational& c : constants_used(*program))
      if (std::find(values.begin(), values.end(), c) == values.end()) values.push_back(c);
  std::sort(values.begin(), values.end());
  std::ostringstream out;
  out << "// Constants: each exact value (in the comment) correctly rounded to float and to double;\n"
         "// nova::kernels::rounded picks the compute type's. Signs live in the expressions.\n";
  for (const Rational& c : values)
    out << "template <typename T>\ninline constexpr T " << constant_name(c) << " = nova::kernels::rounded<T>("
        << float_literal(round_to_float(c)) << ", " << double_literal(round_to_double(c)) << ");  // "
        << exact::to_string(c) << "\n";
  return out.str();
}

std::string function_1d(const char* name, const char* comment, const LinearProgram& program) {
  const std::string body = emit_body(program, "  ");
  // A stride that no statement needs (a one-value side) stays unnamed, so no warning fires.
  const std::string x_stride = body.find("x_stride") != std::string::npos ? "int x_stride" : "int /*x_stride*/";
  const std::string y_stride = body.find("y_stride") != std::string::npos ? "int y_stride" : "int /*y_stride*/";
  std::ostringstream out;
  out << "// " << comment << "\n"
      << "template <typename T>\nNOVA_HD constexpr void " << name << "(const T* x, " << x_stride << ", T* y, " << y_stride
      << ") {\n"
      << body << "}\n";
  return out.str();
}

// `count` calls of `fn`, the i-th with every '#' in `args` spelled out as i.
std::string calls(const char* fn, int count, const char* args) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    std::string line = args;
    for (std::size_t at; (at = line.find('#')) != std::string::npos;) line.replace(at, 1, std::to_string(i));
    out += "  " + std::string(fn) + line + ";\n";
  }
  return out;
}

// Text copied into a generated comment: every byte outside printable ASCII, and the backslash (a
// line splice before a newline), as \xNN, so that no file name can end the comment and become code.
std::string comment_safe(const std::string& text) {
  std::string out;
  for (const unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    }
  }
  return out;
}

}  // namespace

std::string transforms_file_name(const std::string& name) { return name + "_transforms.hpp"; }

std::string emit_transforms_header(const Source& source, const TransformPrograms& programs) {
  const exact::Config& c = source.config;
  const exact::TileSize tile = c.transform.tile;
  const kernels::KroneckerTables fp16 = kronecker_tables(c, kernels::Storage::f16), bf16 = kronecker_tables(c, kernels::Storage::bf16);
  std::ostringstream extra;
  extra << "//\n// Points " << exact::format_points(c.transform.points()) << ", scaling "
        << exact::scaling_name(c.transform.scaling) << ".\n// amp2D " << c.metrics.amp2d
        << " (docs/design.md §6): predicted relative error with fp16 storage " << c.metrics.predicted_error_fp16
        << ".\n"
        << op_count_comment(transform_stats(c, programs));

  std::ostringstream out;
  out << banner(c.name + ": Winograd F(" + std::to_string(tile.m) + "," + std::to_string(tile.r) +
                    ") input, filter and output transforms, fully unrolled, host and device.",
                {source}, extra.str())
      << "#pragma once\n\n"
      << "#include \"nova/kernels/hd.hpp\"\n\n"
      << "namespace nova::generated::" << c.name << " {\n\n"
      << "inline constexpr int kM = " << tile.m << ";  // outputs per tile side\n"
      << "inline constexpr int kR = " << tile.r << ";  // filter taps per side\n"
      << "inline constexpr int kN = " << tile.n() << ";  // input tile side, kM + kR - 1\n\n"
      << constants_block(programs) << "\n"
      << function_1d("input_transform_1d", "y = B^T x: kN values in, kN out; strided, and y may alias x.", programs.input)
      << "\n"
      << function_1d("filter_transform_1d", "y = G x: kR values in, kN out; strided, and y may alias x.", programs.filter)
      << "\n"
      << function_1d("output_transform_1d", "y = A^T x: kN values in, kM out; strided, and y may alias x.",
                     programs.output)
      << "\n"
      << "// v = B^T d B for one kN x kN tile (row-major): B^T down every column of d into v, then\n"
         "// along every row of v, in place.\n"
         "template <typename T>\nNOVA_HD constexpr void input_transform_2d(const T* d, T* v) {\n"
      << calls("input_transform_1d", tile.n(), "(d + #, kN, v + #, kN)")
      << calls("input_transform_1d", tile.n(), "(v + # * kN, 1, v + # * kN, 1)") << "}\n\n"
      << "// u = G g G^T: g is kR x kR, u is kN x kN (row-major). G down every column of g into the\n"
         "// first kR columns of u, then along every row of u, in place (kR values in, kN out).\n"
         "template <typename T>\nNOVA_HD constexpr void filter_transform_2d(const T* g, T* u) {\n"
      << calls("filter_transform_1d", tile.r, "(g + #, kR, u + #, kN)")
      << calls("filter_transform_1d", tile.n(), "(u + # * kN, 1, u + # * kN, 1)") << "}\n\n"
      << "// y = A^T M A: mm is kN x kN, y is kM x kM (row-major). A^T down every column of mm into\n"
         "// t (kM x kN), then along every row of t into y.\n"
         "template <typename T>\nNOVA_HD constexpr void output_transform_2d(const T* mm, T* y) {\n"
         "  T t[kM * kN];\n"
      << calls("output_transform_1d", tile.n(), "(mm + #, kN, t + #, kN)")
      << calls("output_transform_1d", tile.m, "(t + # * kN, 1, y + # * kM, 1)") << "}\n\n"
      << "// The whole transform as one type, for generic code: the GPU kernels, the CPU path, tests. Every function\n"
         "// is constexpr, so that tables of it can be made at compile time (the wgmma kernel's B^T (x) B^T).\n"
         "struct Transform {\n"
         "  static constexpr const char* name = \""
      << c.name << "\";\n"
      << "  static constexpr int m = kM, r = kR, n = kN;\n"
      << "  // B^T (x) B^T as a sum of this many fp16 / bf16 tables, exactly (0: not of two), and the patch rows where\n"
         "  // the second is not zero (a bit each), which the wgmma kernel's input transform on the tensor cores takes\n"
         "  // (nova/kernels/kernel_table.hpp fused_wg_kronecker_tables).\n"
         "  static constexpr int kronecker_terms_fp16 = "
      << fp16.terms << ", kronecker_terms_bf16 = " << bf16.terms << ";\n"
      << "  static constexpr unsigned kronecker_second_rows_fp16 = " << fp16.second_rows
      << ", kronecker_second_rows_bf16 = " << bf16.second_rows << ";\n"
         "  template <typename T>\n"
         "  NOVA_HD static constexpr void input_2d(const T* d, T* v) { input_transform_2d(d, v); }\n"
         "  template <typename T>\n"
         "  NOVA_HD static constexpr void filter_2d(const T* g, T* u) { filter_transform_2d(g, u); }\n"
         "  template <typename T>\n"
         "  NOVA_HD static constexpr void output_2d(const T* mm, T* y) { output_transform_2d(mm, y); }\n"
         "  template <typename T>\n"
         "  NOVA_HD static constexpr void output_1d(const T* x, int x_stride, T* y, int y_stride) {\n"
         "    output_transform_1d(x, x_stride, y, y_stride);\n"
         "  }\n"
         "};\n\n"
      << "}  // namespace nova::generated::" << c.name << "\n";
  return out.str();
}

std::string banner(const std::string& title, const std::vector<Source>& sources, const std::string& extra) {
  std::ostringstream out;
  out << "// " << title << "\n"
      << "//\n"
      << "// Generated by nova-codegen " << NOVA_VERSION << ". Do not edit: change the JSON or the generator,\n"
      << "// then run `nova-codegen configs/*.json --out generated` from the repository root.\n"
      << "//\n";
  for (const Source& s : sources) out << "// Source: " << comment_safe(s.path) << "\n//   SHA-256 " << s.sha256 << "\n";
  out << extra << "\n";
  return out.str();
}

}  // namespace nova::codegen::detail
