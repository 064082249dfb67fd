// Cook-Toom construction of Winograd F(m, r) transforms in exact rational arithmetic, and the
// exact proof of the correlation identity. Conventions are those of docs/design.md §3.
#pragma once

#include "nova/exact/rational.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nova::exact {

// Limits that keep exact construction and the emitted code sensible; beyond them the transforms
// are numerically useless and the exact arithmetic only burns time.
inline constexpr int kMaxOutputTile = 32;  // m
inline constexpr int kMaxFilterTaps = 16;  // r
inline constexpr int kMaxPoints = 40;      // n = m + r - 1

struct TileSize {
  int m = 0;  // outputs per tile
  int r = 0;  // filter taps
  int n() const { return m + r - 1; }
  friend bool operator==(const TileSize&, const TileSize&) = default;
};

// Parses "6,3" or "6x3"; throws InputError on malformed text or sizes out of range.
TileSize parse_tile(std::string_view text);
void validate_tile(TileSize tile);

// Where the Lagrange denominators f_i go. Balanced moves power-of-two row scales of G and B^T into
// A^T so every row has 2-norm near 1 (docs/design.md §6); BalancedUnits then moves a power of two of
// each column of A^T into its row of G, so that as many rows of A^T as it can hold an entry of +-1
// (fewer multiplications in the output transform). Both are exact.
enum class Scaling { DenominatorsInG, DenominatorsInA, DenominatorsInB, Balanced, BalancedUnits };

Scaling parse_scaling(std::string_view text);  // "G", "A", "B", "balanced", "units" or the long JSON names
std::string_view scaling_name(Scaling scaling);  // JSON name, e.g. "denominators-in-G"

// The single naming function of the project: f<m>x<r>_<pointset> (docs/design.md §2). It is used
// for config files, generated files, kernel symbols and the registry key.
std::string transform_name(TileSize tile, std::string_view pointset);
bool is_valid_pointset_label(std::string_view label);
// Whether `name` is transform_name(tile, label) for some valid label.
bool follows_naming(TileSize tile, std::string_view name);

// {0, 1, -1, 2, -2, ...}: the n-1 standard finite points.
std::vector<Rational> standard_points(TileSize tile);

// Checks the n-1 finite points (plus the implied infinity) for count and distinctness. Accepts a
// list with or without one "inf"; returns the finite points in the given order.
std::vector<Rational> finite_points_for_tile(TileSize tile, const std::vector<Point>& points);

struct Transform {
  TileSize tile;
  std::vector<Rational> finite_points;  // n-1 points; infinity is always the last one
  Scaling scaling = Scaling::DenominatorsInG;
  RationalMatrix AT;  // m x n
  RationalMatrix G;   // n x r
  RationalMatrix BT;  // n x n

  std::vector<Point> points() const;  // finite points followed by infinity
};

// Whether two transforms are one: the same tile, scaling and point set. The order of the points
// only permutes the matrices' rows (B^T, G) and columns (A^T), so it does not count.
bool same_transform(const Transform& a, const Transform& b);

// Builds A^T, G, B^T exactly. Throws InputError for an invalid tile or point set.
Transform build_transform(TileSize tile, std::vector<Rational> finite_points, Scaling scaling);

// Result of the exact identity check. On failure names the first offending index triple.
struct Verification {
  bool ok = true;
  std::string message;  // empty when ok
};

// 1D: sum_p AT[i][p] G[p][k] BT[p][j] == [j == i + k] for all i < m, k < r, j < n.
Verification verify_identity_1d(TileSize tile, const RationalMatrix& AT, const RationalMatrix& G,
                                const RationalMatrix& BT);

// 2D: the same identity for the Kronecker-product matrices A^T(x)A^T, G(x)G, B^T(x)B^T, i.e.
// Y = A^T[(G g G^T) . (B^T d B)]A equals the 2D correlation of d and g. It takes m^2 n^4 r^2 exact
// products (F(10,3): 1.9e7, about 3 s); beyond kMax2dVerificationProducts it throws InputError
// instead of running for minutes (the 1D identity, which implies the 2D one, is cheap at any size).
inline constexpr double kMax2dVerificationProducts = 2e7;
double verification_2d_products(TileSize tile);
Verification verify_identity_2d(TileSize tile, const RationalMatrix& AT, const RationalMatrix& G,
                                const RationalMatrix& BT);

}  // namespace nova::exact
