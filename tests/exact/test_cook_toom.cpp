#include "nova/exact/cook_toom.hpp"

#include <catch2/catch.hpp>

using namespace nova::exact;

namespace {

Transform standard(int m, int r, Scaling s = Scaling::DenominatorsInG) {
  const TileSize tile{m, r};
  return build_transform(tile, standard_points(tile), s);
}

}  // namespace

TEST_CASE("standard points verify exactly for F(m,3) m=2..16 and F(m,5), F(m,7) m=2..10") {
  std::vector<TileSize> tiles;
  for (int m = 2; m <= 16; ++m) tiles.push_back({m, 3});
  for (int r : {5, 7})
    for (int m = 2; m <= 10; ++m) tiles.push_back({m, r});
  for (const TileSize tile : tiles) {
    INFO("F(" << tile.m << "," << tile.r << ")");
    const Transform t = standard(tile.m, tile.r);
    const Verification v = verify_identity_1d(tile, t.AT, t.G, t.BT);
    CHECK(v.ok);
    CHECK(v.message.empty());
  }
}

TEST_CASE("F(2,3) with {0, 1, -1} has the textbook matrices") {
  const Transform t = standard(2, 3);
  // Row 0 of G and B^T carry the Lagrange factor f_0 = (0-1)(0+1) = -1; their product is wincnn's.
  CHECK(to_string(t.G(0, 0)) == "-1");
  CHECK(to_string(t.G(1, 0)) == "1/2");
  CHECK(to_string(t.G(3, 2)) == "1");
  CHECK(to_string(t.BT(0, 0)) == "-1");
  CHECK(to_string(t.BT(0, 2)) == "1");
  CHECK(to_string(t.BT(3, 1)) == "-1");
  CHECK(to_string(t.BT(3, 3)) == "1");
  CHECK(to_string(t.AT(1, 2)) == "-1");
  CHECK(to_string(t.AT(1, 3)) == "1");
}

TEST_CASE("every scaling gives a transform that verifies in 1D and 2D") {
  for (const Scaling s : {Scaling::DenominatorsInG, Scaling::DenominatorsInA, Scaling::DenominatorsInB,
                          Scaling::Balanced, Scaling::BalancedUnits}) {
    INFO(scaling_name(s));
    const TileSize tile{4, 3};
    const Transform t = build_transform(tile, finite_points_for_tile(tile, parse_point_list("0,5/6,-5/6,7/6,-7/6")), s);
    CHECK(verify_identity_1d(tile, t.AT, t.G, t.BT).ok);
    CHECK(verify_identity_2d(tile, t.AT, t.G, t.BT).ok);
  }
}

TEST_CASE("balanced scaling brings every row of G and B^T to a 2-norm within sqrt(2) of 1") {
  const Transform t = standard(6, 3, Scaling::Balanced);
  for (const RationalMatrix* m : {&t.G, &t.BT})
    for (std::size_t p = 0; p < m->rows(); ++p) {
      double norm2 = 0;
      for (std::size_t j = 0; j < m->cols(); ++j) norm2 += to_double((*m)(p, j)) * to_double((*m)(p, j));
      CHECK(norm2 >= 0.5);
      CHECK(norm2 <= 2.0);
    }
}

namespace {
// Rows of A^T that hold an entry of +-1.
int unit_rows(const Transform& t) {
  int rows = 0;
  for (std::size_t i = 0; i < t.AT.rows(); ++i) {
    bool unit = false;
    for (std::size_t p = 0; p < t.AT.cols(); ++p) unit = unit || abs(t.AT(i, p)) == 1;
    rows += unit;
  }
  return rows;
}
Transform built(TileSize tile, const char* points, Scaling s) {
  return build_transform(tile, finite_points_for_tile(tile, parse_point_list(points)), s);
}
}  // namespace

TEST_CASE("balanced-units scaling: balanced, with a +-1 in as many rows of A^T as powers of two allow") {
  CHECK(parse_scaling("units") == Scaling::BalancedUnits);
  CHECK(parse_scaling("balanced-units") == Scaling::BalancedUnits);
  CHECK(scaling_name(Scaling::BalancedUnits) == "balanced-units");
  struct Case {
    TileSize tile;
    const char* points;
    int balanced_rows, units_rows;
  };
  // f4x3_fp16_tc: rows 1 and 2 both need the column of +-1/2 (1/2 and 1/4), which gives one of them a unit;
  // f6x3_fp16: the points +-1 reach every row; f4x3_fp16_dyadic: only rows 0 and 3 (points 0, infinity, and 1 in
  // row 0); the standard points: balanced scaling had moved them off their units.
  for (const Case& c : {Case{{4, 3}, "0,1/2,-1/2,3/2,-3/2", 1, 3}, Case{{6, 3}, "0,1/2,-1/2,1,-1,2,-2", 2, 6},
                        Case{{4, 3}, "0,5/8,-5/8,3/2,-3/2", 0, 2}, Case{{4, 3}, "0,1,-1,2,-2", 1, 4}}) {
    INFO("F(" << c.tile.m << "," << c.tile.r << ") " << c.points);
    const Transform balanced = built(c.tile, c.points, Scaling::Balanced);
    const Transform units = built(c.tile, c.points, Scaling::BalancedUnits);
    CHECK(verify_identity_1d(c.tile, units.AT, units.G, units.BT).ok);
    CHECK(unit_rows(balanced) == c.balanced_rows);
    CHECK(unit_rows(units) == c.units_rows);
    // Only powers of two move between a column of A^T and its row of G; B^T stays balanced.
    for (std::size_t p = 0; p < units.AT.cols(); ++p) {
      for (std::size_t i = 0; i < units.AT.rows(); ++i)
        for (std::size_t k = 0; k < units.G.cols(); ++k)
          CHECK(units.AT(i, p) * units.G(p, k) == balanced.AT(i, p) * balanced.G(p, k));
      for (std::size_t j = 0; j < units.BT.cols(); ++j) CHECK(units.BT(p, j) == balanced.BT(p, j));
    }
    // A point and its negative keep columns of equal magnitudes (the output transform's sums and differences).
    for (std::size_t p = 1; p + 1 < units.AT.cols() - 1; p += 2)
      for (std::size_t i = 0; i < units.AT.rows(); ++i) CHECK(abs(units.AT(i, p)) == abs(units.AT(i, p + 1)));
  }
}

TEST_CASE("a matrix with one entry changed is rejected naming (i, j, k)") {
  const TileSize tile{4, 3};
  const Transform t = standard(4, 3);
  SECTION("A^T") {
    RationalMatrix at = t.AT;
    at(2, 3) += Rational(1) / 7;
    const Verification v = verify_identity_1d(tile, at, t.G, t.BT);
    CHECK_FALSE(v.ok);
    CHECK_THAT(v.message, Catch::Contains("(i, j, k) = (2, "));
  }
  SECTION("G") {
    RationalMatrix g = t.G;
    g(1, 2) = 5;
    const Verification v = verify_identity_1d(tile, t.AT, g, t.BT);
    CHECK_FALSE(v.ok);
    CHECK_THAT(v.message, Catch::Contains("(i, j, k) = (") && Catch::Contains(", 2)"));
  }
  SECTION("B^T") {
    RationalMatrix bt = t.BT;
    bt(0, 0) = 0;
    const Verification v = verify_identity_1d(tile, t.AT, t.G, bt);
    CHECK_FALSE(v.ok);
    CHECK_THAT(v.message, Catch::Contains("(i, j, k) = (0, 0, 0)") && Catch::Contains("expected 1"));
  }
  SECTION("2D") {
    RationalMatrix bt = t.BT;
    bt(5, 1) += 1;
    CHECK_THAT(verify_identity_2d(tile, t.AT, t.G, bt).message, Catch::Contains("(i1, i2, j1, j2, k1, k2)"));
  }
}

TEST_CASE("tile parsing and validation") {
  CHECK(parse_tile("6,3") == TileSize{6, 3});
  CHECK(parse_tile("6x3") == TileSize{6, 3});
  for (const char* bad : {"0,3", "6,0", "10000,3", "6", "a,b", "6,3,1", "-1,3", "1,1"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_tile(bad), InputError);
  }
}

TEST_CASE("point sets are checked for count, duplicates and infinity") {
  const TileSize tile{2, 3};
  CHECK(finite_points_for_tile(tile, parse_point_list("0,1,-1")).size() == 3);
  CHECK(finite_points_for_tile(tile, parse_point_list("0,1,-1,inf")).size() == 3);
  CHECK_THROWS_WITH(finite_points_for_tile(tile, parse_point_list("0,1,1")), Catch::Contains("duplicate point 1"));
  CHECK_THROWS_WITH(finite_points_for_tile(tile, parse_point_list("0,1")), Catch::Contains("needs 3 finite points"));
  CHECK_THROWS_WITH(finite_points_for_tile(tile, parse_point_list("0,1,inf,inf")), Catch::Contains("2 times"));
  CHECK_THROWS_WITH(finite_points_for_tile(tile, parse_point_list("0,2/4,1/2")), Catch::Contains("duplicate point 1/2"));
}

TEST_CASE("the naming function") {
  CHECK(transform_name({6, 3}, "nova") == "f6x3_nova");
  CHECK_THROWS_AS(transform_name({6, 3}, "Nova"), InputError);
  CHECK_THROWS_AS(transform_name({6, 3}, ""), InputError);
  CHECK_THROWS_AS(transform_name({6, 3}, "../x"), InputError);
}

TEST_CASE("same_transform: tile, scaling and point set, in any order") {
  const TileSize tile{4, 3};
  const auto build = [&](const char* points, Scaling scaling) {
    return build_transform(tile, finite_points_for_tile(tile, parse_point_list(points)), scaling);
  };
  const Transform a = build("0,5/6,-5/6,7/6,-7/6", Scaling::DenominatorsInG);
  CHECK(same_transform(a, build("-7/6,7/6,0,-5/6,5/6", Scaling::DenominatorsInG)));
  CHECK_FALSE(same_transform(a, build("0,5/6,-5/6,7/6,-7/6", Scaling::Balanced)));
  CHECK_FALSE(same_transform(a, build("0,1,-1,2,-2", Scaling::DenominatorsInG)));
  const TileSize other{3, 4};  // the same n, another tile
  CHECK_FALSE(same_transform(a, build_transform(other, finite_points_for_tile(other, parse_point_list("0,5/6,-5/6,7/6,-7/6")),
                                                Scaling::DenominatorsInG)));
}
