// The runtime's side of loading a transform at run time: libnova_jit (nova/jit.h) reads, verifies and
// generates; it hands the result to register_transform, and from then on descriptors, "auto" and
// "tuned" find the transform beside the built-in ones. libnova_runtime itself parses, verifies and
// compiles nothing: the CPU backend runs a loaded transform from its straight-line programs, and the
// GPU backend asks the transform's `compile` for code the first time it needs it on a device.
#pragma once

#include "nova/runtime.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace nova::runtime {

// One 1D transform y = M x as straight-line code (nova-codegen's, in a form the CPU interprets):
// each statement sets an output row or a temp to factor * sum(coefficient * operand), in order.
// Operands 0 .. inputs-1 are x, inputs + j is temp j. Values in fp32, as the generated code computes.
struct ProgramTerm {
  int operand;
  float coefficient;  // +-1, or the exact coefficient correctly rounded to float
};
struct ProgramStatement {
  bool to_output;  // y[index], else temp `index`
  int index;
  float factor;
  std::vector<ProgramTerm> terms;  // empty: zero
};
struct StraightLineProgram {
  int inputs = 0, outputs = 0, temps = 0;
  std::vector<ProgramStatement> statements;
};

struct LoadedTransform {
  std::string name, points, scaling;  // as in its JSON
  int m = 0, r = 0;
  std::vector<double> AT, G, BT;      // row-major, each entry correctly rounded to double
  int input_ops = 0, output_ops = 0;  // of the 2D transforms, as nova-codegen --stats counts them
  double amp2d = 0, predicted_error_fp16 = 0;
  StraightLineProgram input, filter, output;  // B^T (n -> n), G (r -> n), A^T (n -> m)
  std::string content_hash;  // of the verified config: the same transform loaded twice is one transform
  bool has_fused_kernels = false;  // tiles the fused convolution takes (n <= 6, m^2 < 3n)
  // The GPU code of one kernel group (the 3-pass transforms, or the fused convolution) for a device
  // architecture ("sm_90a"): an image the driver loads (cubin or PTX); empty on failure (the loader
  // keeps the reason: nova_jit_last_error). Called at most once per group and architecture.
  std::function<std::string(std::string_view arch, bool fused)> compile;
};

// Registers a transform. NOVA_STATUS_TRANSFORM_EXISTS when another transform (a built-in one, or a
// loaded one with other content) has its name; the same content again is a success that adds
// nothing. info (nullable) receives the registered transform's, valid for the process's life.
NOVA_API nova_status_t register_transform(LoadedTransform transform, nova_transform_info_t* info);

}  // namespace nova::runtime
