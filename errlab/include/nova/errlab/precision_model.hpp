// The precision model of an emulated Winograd layer: which number format each tensor is stored in
// at each stage boundary, what the transform matrices are rounded to, and the arithmetic of the
// transforms (docs/design.md §6, paper section 4.1 and appendices D.4/D.6).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nova::errlab {

enum class Format { fp64, fp32, fp16, bf16, int8 };

// int8 only: one symmetric scale for the whole tensor or one per channel (paper Table 34).
enum class Granularity { tensor, channel };

struct StorageType {
  Format format = Format::fp64;
  Granularity granularity = Granularity::tensor;
  friend bool operator==(const StorageType&, const StorageType&) = default;
};

// "fp64", "fp32", "fp16", "bf16", "int8" (= "int8-tensor") or "int8-channel"; throws InputError
// (from nova::exact) naming the valid choices.
StorageType parse_storage_type(std::string_view text);
std::string to_string(StorageType type);
std::string_view to_string(Format format);
bool is_float(Format format);

// Unit roundoff 2^-p of a floating-point format; 0 for int8, whose error depends on the data range.
double unit_roundoff(Format format);

struct PrecisionModel {
  StorageType input;               // d, as read from memory
  StorageType filter;              // g, the weights
  StorageType transformed_input;   // V = B^T d B
  StorageType transformed_filter;  // U = G g G^T
  // M = sum_c U_c . V_c: a float format is the accumulator itself (every multiply-add rounded to
  // it); int8 means an exact (int32-like) accumulation whose result M is then requantized to int8.
  StorageType accumulator;
  StorageType output;              // Y = A^T M A
  StorageType matrices;            // entries of A^T, G, B^T (int8: per matrix or per row)
  Format compute = Format::fp32;   // arithmetic of the three transforms (fused multiply-adds)
  // M as stored between the sum and the output transform (a 3-pass pipeline's workspace; the GPU's
  // stores it in 16 bits where the budget allows, docs/design.md §6): fp64 keeps the sum as it is.
  StorageType product;
  // Arithmetic of the input transform B^T d B alone where it differs from `compute` (a kernel that
  // transforms the input in fp16 pairs, HADD2/HFMA2, and everything else in fp32); none: `compute`.
  std::optional<Format> input_compute;

  friend bool operator==(const PrecisionModel&, const PrecisionModel&) = default;
};

struct PresetInfo {
  std::string_view name;
  std::string_view description;
};
const std::vector<PresetInfo>& presets();
PrecisionModel preset(std::string_view name);  // throws InputError for an unknown name

// Throws InputError for combinations the emulation does not model (int8 compute).
void validate(const PrecisionModel& model);

// The arithmetic of the input transform: input_compute where set, else compute.
Format input_arithmetic(const PrecisionModel& model);

// The coarsest unit roundoff among the Winograd-domain tensors and the matrices: the u of the
// amp2D prediction 0.7 u amp2D (docs/design.md §6). 0 when one of them is int8 (no prediction).
double prediction_unit_roundoff(const PrecisionModel& model);

// "input=fp16 filter=fp16 V=fp16 U=fp16 acc=fp32 output=fp16 matrices=fp32 compute=fp32", then
// " input_compute=fp16" where the input transform's arithmetic differs
std::string describe(const PrecisionModel& model);

}  // namespace nova::errlab
