// The contract between generated/ and the runtime: every generated Winograd transform, by name
// (f<m>x<r>_<pointset>), with host functions that use exactly the code the GPU kernels use, and in
// GPU builds its kernels' launchers. Defined in generated/registry.cpp: nova::generated (CPU
// builds, `gpu` null) or nova::generated_gpu (with every <name>_kernels.hip).
#pragma once

#include <span>
#include <string_view>

namespace nova::kernels {

struct GpuTransformEntry;  // transform_registry_gpu.hpp

struct TransformEntry {
  const char* name;  // registry key, file and namespace name: nova::generated::<name>
  int m, r, n;       // F(m, r), input tile n = m + r - 1
  const char* points;   // "{0, 3/5, -3/5, ..., inf}"
  const char* scaling;  // "denominators-in-G", "balanced", ...
  // 2D transforms of one tile, row-major: v = B^T d B (n x n -> n x n), u = G g G^T (r x r ->
  // n x n), y = A^T M A (n x n -> m x m).
  void (*input_2d_f64)(const double* d, double* v);
  void (*filter_2d_f64)(const double* g, double* u);
  void (*output_2d_f64)(const double* mm, double* y);
  void (*input_2d_f32)(const float* d, float* v);
  void (*filter_2d_f32)(const float* g, float* u);
  void (*output_2d_f32)(const float* mm, float* y);
  // The JSON's exact matrices, each entry correctly rounded to double, row-major: A^T is m x n,
  // G is n x r, B^T is n x n.
  const double* AT;
  const double* G;
  const double* BT;
  // B^T (x) B^T as a sum of this many fp16 / bf16 tables, exactly (kernel_table.hpp fused_wg_kronecker_tables;
  // 0: not of two): where it is not 0 the wgmma kernel may take its input transform on the tensor cores in that type.
  int kronecker_terms_fp16, kronecker_terms_bf16;
  int input_ops, output_ops;    // adds + multiplies of one emitted 2D input / output transform (codegen --stats)
  double amp2d;                 // docs/design.md §6
  double predicted_error_fp16;  // 0.7 u amp2D, relative L2, fp16 storage
  const GpuTransformEntry* gpu;  // the transform's GPU launchers; nullptr in a build without them
};

std::span<const TransformEntry> transform_registry();  // sorted by name
const TransformEntry* find_transform(std::string_view name);  // nullptr when there is none

}  // namespace nova::kernels
