#include "nova/errlab/precision_model.hpp"

#include "nova/exact/rational.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace nova::errlab {
namespace {

using exact::InputError;

constexpr std::array<std::pair<std::string_view, StorageType>, 7> kStorageNames{{
    {"fp64", {Format::fp64, Granularity::tensor}},
    {"fp32", {Format::fp32, Granularity::tensor}},
    {"fp16", {Format::fp16, Granularity::tensor}},
    {"bf16", {Format::bf16, Granularity::tensor}},
    {"int8-tensor", {Format::int8, Granularity::tensor}},
    {"int8-channel", {Format::int8, Granularity::channel}},
    {"int8", {Format::int8, Granularity::tensor}},  // alias, last so to_string finds the long name
}};

StorageType f(Format format) { return {format, Granularity::tensor}; }

struct Preset {
  PresetInfo info;
  PrecisionModel model;
};

// input, filter, transformed input, transformed filter, accumulator, output, matrices, compute, product, input
// transform's arithmetic where it differs from compute (none in any preset)
const std::vector<Preset>& preset_table() {
  using F = Format;
  static const std::vector<Preset> table = {
      {{"exact", "everything fp64: the emulation's own floor (about 1e-15)"},
       {f(F::fp64), f(F::fp64), f(F::fp64), f(F::fp64), f(F::fp64), f(F::fp64), f(F::fp64), F::fp64, f(F::fp64), std::nullopt}},
      {{"storage-fp16",
        "docs/design.md §6 table: B^T d B and G g G^T stored fp16, channel sum fp32, the rest fp64"},
       {f(F::fp64), f(F::fp64), f(F::fp16), f(F::fp16), f(F::fp32), f(F::fp64), f(F::fp64), F::fp64, f(F::fp64), std::nullopt}},
      {{"storage-bf16", "as storage-fp16 with bf16 storage"},
       {f(F::fp64), f(F::fp64), f(F::bf16), f(F::bf16), f(F::fp32), f(F::fp64), f(F::fp64), F::fp64, f(F::fp64), std::nullopt}},
      {{"kernel-fp16",
        "docs/design.md §6 kernel: fp16 input/filter/output, transforms in fp32 with fp32 constants, "
        "V and U stored fp16, fp32 accumulation"},
       {f(F::fp16), f(F::fp16), f(F::fp16), f(F::fp16), f(F::fp32), f(F::fp16), f(F::fp32), F::fp32, f(F::fp64), std::nullopt}},
      {{"paper-fp16", "paper appendix D.4: transform matrices stored in fp16, all computation in fp32"},
       {f(F::fp32), f(F::fp32), f(F::fp32), f(F::fp32), f(F::fp32), f(F::fp32), f(F::fp16), F::fp32, f(F::fp64), std::nullopt}},
      {{"paper-int8",
        "paper appendix D.6 (Tables 9, 20): the transform matrices quantized to symmetric per-tensor int8 "
        "(scale max|entry|/127, round half even), everything else fp32"},
       {f(F::fp32), f(F::fp32), f(F::fp32), f(F::fp32), f(F::fp32), f(F::fp32), f(F::int8), F::fp32, f(F::fp64), std::nullopt}},
      {{"paper-int8-channel", "as paper-int8 with one scale per matrix row (paper Table 34, per-channel)"},
       {f(F::fp32), f(F::fp32), f(F::fp32), f(F::fp32), f(F::fp32), f(F::fp32), {F::int8, Granularity::channel},
        F::fp32, f(F::fp64), std::nullopt}},
      {{"winograd-int8",
        "an int8 Winograd kernel: V and U quantized to per-tensor int8, products accumulated in fp32, "
        "fp32 transforms and I/O"},
       {f(F::fp32), f(F::fp32), f(F::int8), f(F::int8), f(F::fp32), f(F::fp32), f(F::fp32), F::fp32, f(F::fp64), std::nullopt}},
  };
  return table;
}

}  // namespace

StorageType parse_storage_type(std::string_view text) {
  for (const auto& [name, type] : kStorageNames)
    if (text == name) return type;
  throw InputError("unknown number format '" + std::string(text) +
                   "' (expected fp64, fp32, fp16, bf16, int8, int8-tensor or int8-channel)");
}

std::string to_string(StorageType type) {
  for (const auto& [name, t] : kStorageNames)
    if (t == type) return std::string(name);
  return std::string(to_string(type.format));
}

std::string_view to_string(Format format) {
  switch (format) {
    case Format::fp64: return "fp64";
    case Format::fp32: return "fp32";
    case Format::fp16: return "fp16";
    case Format::bf16: return "bf16";
    case Format::int8: return "int8";
  }
  return "?";
}

bool is_float(Format format) { return format != Format::int8; }

double unit_roundoff(Format format) {
  switch (format) {
    case Format::fp64: return std::ldexp(1.0, -53);
    case Format::fp32: return std::ldexp(1.0, -24);
    case Format::fp16: return std::ldexp(1.0, -11);
    case Format::bf16: return std::ldexp(1.0, -8);
    case Format::int8: return 0.0;
  }
  return 0.0;
}

const std::vector<PresetInfo>& presets() {
  static const std::vector<PresetInfo> infos = [] {
    std::vector<PresetInfo> out;
    for (const auto& p : preset_table()) out.push_back(p.info);
    return out;
  }();
  return infos;
}

PrecisionModel preset(std::string_view name) {
  std::string known;
  for (const auto& p : preset_table()) {
    if (p.info.name == name) return p.model;
    known += (known.empty() ? "" : ", ") + std::string(p.info.name);
  }
  throw InputError("unknown precision model '" + std::string(name) + "' (expected one of: " + known + ")");
}

void validate(const PrecisionModel& model) {
  if (!is_float(model.compute))
    throw InputError("the transform arithmetic (--compute-type) must be a floating-point format, not int8");
  if (!is_float(input_arithmetic(model)))
    throw InputError("the input transform's arithmetic (--input-compute-type) must be a floating-point format, not int8");
}

Format input_arithmetic(const PrecisionModel& model) { return model.input_compute.value_or(model.compute); }

double prediction_unit_roundoff(const PrecisionModel& model) {
  const StorageType winograd_domain[] = {model.transformed_input, model.transformed_filter, model.matrices,
                                         f(model.compute), f(input_arithmetic(model))};
  double u = 0;
  for (const StorageType& t : winograd_domain) {
    if (!is_float(t.format)) return 0.0;
    u = std::max(u, unit_roundoff(t.format));
  }
  return u;
}

std::string describe(const PrecisionModel& m) {
  return "input=" + to_string(m.input) + " filter=" + to_string(m.filter) + " V=" + to_string(m.transformed_input) +
         " U=" + to_string(m.transformed_filter) + " acc=" + to_string(m.accumulator) +
         " M=" + to_string(m.product) + " output=" + to_string(m.output) + " matrices=" + to_string(m.matrices) +
         " compute=" + std::string(to_string(m.compute)) +
         (m.input_compute ? " input_compute=" + std::string(to_string(*m.input_compute)) : "");
}

}  // namespace nova::errlab
