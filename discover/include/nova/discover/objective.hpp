// What the search minimises (docs/design.md §4 and §6): the paper's Vandermonde conditioning,
// or the FP16/BF16 error amplification amp2D under a storage-range constraint.
#pragma once

#include "nova/exact/cook_toom.hpp"

#include <Eigen/Dense>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nova::discover {

enum class Objective { Kappa, Fp16, Bf16 };

Objective parse_objective(std::string_view text);  // "kappa", "fp16", "bf16"
std::string_view objective_name(Objective objective);

// Normal range of a storage type: transformed values must stay inside it.
struct StorageRange {
  double min_normal;
  double max_finite;
};

inline constexpr StorageRange kFp16Range{6.103515625e-05, 65504.0};           // 2^-14, (2 - 2^-10) 2^15
inline constexpr StorageRange kBf16Range{1.1754943508222875e-38, 3.3895313892515355e+38};  // 2^-126, (2 - 2^-7) 2^127

// Weights of the kappa fitness. The paper's eq. 5 has lambda1 = 0.001 on the magnitude term and
// lambda2 = 0.0001 on log10(kappa + 1); with those weights the magnitude term dominates and the ES
// shrinks the points to about 0.3, where kappa2(V) is 340 to 38,000 (docs/discovery.md). With
// lambda2 = 1 the ES reaches the continuous kappa optimum, so that is what is used.
inline constexpr double kMagnitudeWeight = 0.001;
inline constexpr double kConditioningWeight = 1.0;

// What the tensor-core constraint without a storage type is refused with (the search's options and the objective).
inline constexpr const char* kTensorCoreNeedsType = "--tensor-core needs a storage type: --objective fp16 or bf16";

class ObjectiveFunction {
 public:
  // tensor_core (fp16 and bf16 only): score() also rejects point sets whose B^T (x) B^T is not one table of the
  // storage type, exactly (one_kronecker_table).
  ObjectiveFunction(exact::TileSize tile, Objective objective, exact::Scaling scaling, bool tensor_core = false);

  exact::TileSize tile() const { return tile_; }
  Objective objective() const { return objective_; }
  exact::Scaling scaling() const { return scaling_; }
  bool tensor_core() const { return tensor_core_; }

  // The storage type's range for fp16/bf16; none for kappa.
  std::optional<StorageRange> storage_range() const;

  // What the final choice minimises, for n-1 finite points: kappa2(V) for kappa; amp2D for
  // fp16/bf16, or +infinity when, with the chosen scaling, the full-scale transformed value of
  // inputs or filters of magnitude <= 1 leaves the type's normal range at some position, or, with
  // tensor_core, when B^T (x) B^T is not one table of the type.
  double score(const std::vector<double>& points) const;

  // The ES fitness, a smooth stand-in for score() (the tensor-core constraint is not smooth: only score() has it,
  // so the neighbourhood search picks among the exact sets near the ES optimum):
  //   kappa:     ||T - T_rec||_F + 0.001 ||p||^2 / (n-1) + log10(kappa2(V) + 1)   (eq. 5, lambda2 = 1)
  //   fp16/bf16: ||T - T_rec||_F + log10(amp2D) + decades outside the normal range
  double fitness(const std::vector<double>& points) const;

  // One line naming the score and fitness, for provenance.
  std::string description() const;

 private:
  exact::TileSize tile_;
  Objective objective_;
  exact::Scaling scaling_;
  bool tensor_core_;
};

// Whether every product of two entries of BT (n x n) is a value of the objective's storage type (fp16 or bf16):
// B^T (x) B^T is then one table of the type, and the fused wgmma kernel's input transform on the tensor cores
// takes the set with one product a k-step (the kernel's rule, nova/kernels/kernel_table.hpp
// fused_wg_kronecker_tables; two tables cost it up to three more products a tile).
bool one_kronecker_table(const Eigen::MatrixXd& BT, Objective objective);

}  // namespace nova::discover
