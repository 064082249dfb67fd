// Every transform the runtime knows: the generated ones (generated/registry.cpp), then those loaded
// at run time (nova/transform_registration.hpp) in load order. Positions never change and entries
// live as long as the process, so a TransformEntry pointer or position names a transform for good.
// Loads may run while other threads look transforms up.
#pragma once

#include "nova/kernels/transform_registry.hpp"
#include "nova/transform_registration.hpp"

#include <string_view>
#include <vector>

namespace nova::runtime {

using kernels::TransformEntry;

std::vector<const TransformEntry*> all_transforms();
const TransformEntry* find_transform(std::string_view name);  // nullptr when there is none
const TransformEntry* transform_at(int position);             // nullptr outside 0 .. count-1
int transform_position(const TransformEntry& t);
nova_transform_info_t transform_info(const TransformEntry& t);  // what nova_transform_info reports
int transform_count();

// A loaded transform's source (programs, compiler), or nullptr for a generated one.
const LoadedTransform* loaded_source(const TransformEntry& t);

// y = M x by one of a loaded transform's programs; x and y strided, y may alias x.
void run_program(const StraightLineProgram& p, const float* x, int x_stride, float* y, int y_stride);

// The 2D transforms of one tile in fp32, of a generated transform (its compiled code) or a loaded one
// (its programs): v = B^T d B, u = G g G^T, y = A^T M A, row-major.
class TileTransforms {
 public:
  explicit TileTransforms(const TransformEntry& t) : t_(t), loaded_(loaded_source(t)) {}
  void input(const float* d, float* v) const;
  void filter(const float* g, float* u) const;
  void output(const float* mm, float* y) const;

 private:
  const TransformEntry& t_;
  const LoadedTransform* loaded_;
};

}  // namespace nova::runtime
