#include "nova/discover/objective.hpp"
#include "nova/exact/enum_names.hpp"

#include "nova/exact/fast_metrics.hpp"
#include "nova/exact/rational.hpp"
#include "nova/kernels/kernel_table.hpp"

#include <cmath>
#include <limits>

namespace nova::discover {

using namespace exact;  // the search works in the exact core's vocabulary

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Decades by which the full-scale transformed values leave the storage range (0 inside).
double decades_outside(const TransformedRange& values, const StorageRange& range) {
  return std::max(0.0, std::log10(values.largest_full_scale / range.max_finite)) +
         std::max(0.0, std::log10(range.min_normal / values.smallest_full_scale));
}

double finite_or_infinity(double x) { return std::isfinite(x) ? x : kInfinity; }

}  // namespace

namespace {
constexpr EnumName<Objective> kObjectiveNames[] = {
    {Objective::Kappa, "kappa"}, {Objective::Fp16, "fp16"}, {Objective::Bf16, "bf16"}};
}  // namespace

Objective parse_objective(std::string_view text) { return parse_enum<Objective>(kObjectiveNames, text, "objective"); }

std::string_view objective_name(Objective objective) { return enum_name<Objective>(kObjectiveNames, objective); }

ObjectiveFunction::ObjectiveFunction(TileSize tile, Objective objective, Scaling scaling, bool tensor_core)
    : tile_(tile), objective_(objective), scaling_(scaling), tensor_core_(tensor_core) {
  if (tensor_core && objective == Objective::Kappa) throw InputError(kTensorCoreNeedsType);
}

bool one_kronecker_table(const Eigen::MatrixXd& BT, Objective objective) {
  if (objective == Objective::Kappa) throw InputError(kTensorCoreNeedsType);
  // The kernel's rule reads B^T row-major.
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> row_major = BT;
  const auto storage = objective == Objective::Fp16 ? kernels::Storage::f16 : kernels::Storage::bf16;
  return kernels::fused_wg_kronecker_tables(static_cast<int>(BT.rows()), row_major.data(), storage).terms == 1;
}

std::optional<StorageRange> ObjectiveFunction::storage_range() const {
  switch (objective_) {
    case Objective::Kappa: return std::nullopt;
    case Objective::Fp16: return kFp16Range;
    case Objective::Bf16: return kBf16Range;
  }
  return std::nullopt;
}

double ObjectiveFunction::score(const std::vector<double>& points) const {
  if (objective_ == Objective::Kappa) return finite_or_infinity(kappa2_vandermonde(points));
  const FastTransform t = build_transform_fast(tile_, points, scaling_);
  if (decades_outside(transformed_range(t), *storage_range()) > 0) return kInfinity;
  if (tensor_core_ && !one_kronecker_table(t.BT, objective_)) return kInfinity;
  return finite_or_infinity(amplification_2d(t.AT, t.G, t.BT));
}

double ObjectiveFunction::fitness(const std::vector<double>& points) const {
  const FastTransform t = build_transform_fast(tile_, points, scaling_);
  double value = tensor_error(t);
  if (objective_ == Objective::Kappa) {
    double magnitude = 0;
    for (double p : points) magnitude += p * p;
    value += kMagnitudeWeight * magnitude / static_cast<double>(points.size()) +
             kConditioningWeight * std::log10(kappa2_vandermonde(points) + 1);
  } else {
    value += std::log10(amplification_2d(t.AT, t.G, t.BT)) + decades_outside(transformed_range(t), *storage_range());
  }
  return finite_or_infinity(value);
}

std::string ObjectiveFunction::description() const {
  if (objective_ == Objective::Kappa)
    return "score kappa2(V); ES fitness ||T - T_rec||_F + 0.001 ||p||^2/(n-1) + log10(kappa2(V) + 1) "
           "(paper eq. 5 with lambda2 = 1)";
  return "score amp2D with every full-scale transformed value in the " + std::string(objective_name(objective_)) +
         " normal range (" + std::string(scaling_name(scaling_)) + " scaling)" +
         (tensor_core_ ? ", B^T (x) B^T one " + std::string(objective_name(objective_)) + " table" : std::string()) +
         "; ES fitness ||T - T_rec||_F + log10(amp2D) + decades outside the range";
}

}  // namespace nova::discover
