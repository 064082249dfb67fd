// Reference point sets printed beside every search result (docs/design.md §4): standard
// integers, Chebyshev nodes with their best affine map (paper Table 25), reciprocal pairs with the
// best ratio (Alam et al.), and the classic set of a tile where one exists.
#pragma once

#include "nova/discover/objective.hpp"
#include "nova/exact/rational.hpp"
#include "nova/discover/snap.hpp"

#include <optional>
#include <string>
#include <vector>

namespace nova::discover {

struct Baseline {
  std::string label;        // point-set label for transform_name, e.g. "chebyshev"
  std::string description;  // how the points were chosen
  std::vector<exact::Rational> points;  // n-1 finite points
};

// Chebyshev nodes cos((2k-1) pi / (2(n-1))), k = 1..n-1, mapped by x -> a x + b with the (a, b) in
// [0.5, 5] x [-2, 2] that minimises the objective's score (grid, then a finer grid around the
// best). The irrational nodes are stored as the nearest multiples of 2^-32.
Baseline chebyshev_baseline(const ObjectiveFunction& objective);

// {0 if n-1 is odd} U {+-1 if the pair count is odd} U {+-c^j, +-c^-j : j = 1, 2, ...}, the
// one-parameter reciprocal family (Alam et al.), with the c > 1 that minimises the objective's
// score among those that keep every point in the search's lattice: the same vocabulary as the
// search, so the comparison measures only the family's constraint. None when no c qualifies or
// the tile has fewer than two pairs (the family then has no parameter).
std::optional<Baseline> reciprocal_baseline(const ObjectiveFunction& objective, const RationalLattice& lattice);

// Standard integers, then Chebyshev, reciprocal and the classic sets of the tile.
std::vector<Baseline> make_baselines(const ObjectiveFunction& objective, const RationalLattice& lattice);

}  // namespace nova::discover
