// Snap-to-rational (paper Alg. 2, eq. 15) and the rational neighbourhood search of its appendix
// B.3, over the lattice of simple rationals a/b with 1 <= b <= d_max and |a| <= numerator_bound * b,
// optionally restricted to the values a storage type represents exactly (paper Table 15).
#pragma once

#include "nova/exact/rational.hpp"
#include "nova/discover/worker_pool.hpp"

#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

namespace nova::discover {

// Representability constraint of paper B.7 / Table 15.
enum class Dtype { None, Fp16, Bf16, Int8 };

Dtype parse_dtype(std::string_view text);  // "none", "fp16", "bf16", "int8"
std::string_view dtype_name(Dtype dtype);

// Table 15: fp16 n/2^k with |n| <= 2048, k <= 10; bf16 |n| <= 256, k <= 7; int8 integers in
// [-128, 127]. Dtype::None accepts everything.
bool is_representable(const exact::Rational& value, Dtype dtype);

struct LatticeBounds {
  int max_denominator = 10;  // d_max
  int numerator_bound = 5;   // |a| <= numerator_bound * b
  Dtype dtype = Dtype::None;
};

// Upper limits that keep snapping (O(d_max) per value) and the neighbourhood lists cheap.
inline constexpr int kMaxDenominatorLimit = 1000;
inline constexpr int kNumeratorBoundLimit = 1000;

class RationalLattice {
 public:
  // Throws InputError for bounds out of range.
  explicit RationalLattice(LatticeBounds bounds);

  const LatticeBounds& bounds() const { return bounds_; }

  bool contains(const exact::Rational& value) const;

  // Nearest lattice value (eq. 15); ties go to the smaller denominator, then to the smaller value.
  exact::Rational snap(double x) const;
  double distance_to_lattice(double x) const;

  // The `count` lattice values nearest to x (fewer if the lattice is smaller), nearest first;
  // ties as in snap. With positive_only, only values > 0 qualify.
  std::vector<exact::Rational> nearest(double x, std::size_t count, bool positive_only) const;

  // Number of distinct lattice values > 0, counted up to `enough` (enumerating a large lattice
  // only to compare it with a small number would be wasteful).
  std::size_t count_positive(std::size_t enough) const;

 private:
  // The numerators a with a/b in the lattice for denominator b lie in [lowest, highest]; empty
  // when the dtype excludes the denominator.
  struct NumeratorRange {
    long long lowest = 1, highest = 0;
  };
  NumeratorRange numerators(int denominator) const;

  LatticeBounds bounds_;
};

struct NeighbourhoodResult {
  std::vector<exact::Rational> coordinates;  // empty when no valid combination exists
  double score = 0;
  std::size_t evaluated = 0;
};

// Searches the lattice around `centre` (one continuous value per coordinate) for the combination
// with the lowest finite score; combinations that repeat a value are invalid. Where k >= 2 values
// per coordinate fit the budget (k^dims <= budget) it scores every combination of the k values
// nearest to each coordinate; beyond that it descends by single-coordinate moves among the 8
// nearest values. Ties go to the earliest combination, so the result never depends on the number
// of threads. With positive_only, only lattice values > 0 are used.
NeighbourhoodResult neighbourhood_search(const std::vector<double>& centre, const RationalLattice& lattice,
                                         bool positive_only, std::size_t budget,
                                         const std::function<double(const std::vector<double>&)>& score,
                                         WorkerPool& pool);

}  // namespace nova::discover
