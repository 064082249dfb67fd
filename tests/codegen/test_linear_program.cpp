// The straight-line programs compute exactly M x (checked by running them in exact rationals),
// drop zero terms, never cost more than the dense product and share work for symmetric points.
#include "nova/codegen/codegen.hpp"
#include "nova/codegen/linear_program.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

using namespace nova::codegen;
using nova::exact::Rational;
using nova::exact::RationalMatrix;

namespace {

// Runs the program on exact inputs.
std::vector<Rational> run(const LinearProgram& p, const std::vector<Rational>& x) {
  std::vector<Rational> temps(p.temps.size()), y(p.rows);
  std::vector<bool> defined(p.temps.size(), false), written(p.rows, false);
  for (const Statement& s : p.statements) {
    Rational value = 0;
    for (const Term& t : s.terms) {
      const auto i = static_cast<std::size_t>(t.operand.index);
      if (t.operand.kind == Operand::Kind::temp) REQUIRE(defined[i]);  // defined before use
      value += t.coefficient * (t.operand.kind == Operand::Kind::input ? x[i] : temps[i]);
    }
    value *= s.factor;
    const auto target = static_cast<std::size_t>(s.index);
    if (s.target == Statement::Target::temp) {
      temps[target] = value;
      defined[target] = true;
    } else {
      REQUIRE_FALSE(written[target]);  // one statement per output row
      y[target] = value;
      written[target] = true;
    }
  }
  for (bool w : written) REQUIRE(w);
  return y;
}

void check_exact(const RationalMatrix& m, const LinearProgram& p) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> value(-9, 9);
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<Rational> x(m.cols());
    for (auto& v : x) v = Rational(value(rng), 7);
    const std::vector<Rational> y = run(p, x);
    for (std::size_t i = 0; i < m.rows(); ++i) {
      Rational want = 0;
      for (std::size_t k = 0; k < m.cols(); ++k) want += m(i, k) * x[k];
      REQUIRE(y[i] == want);
    }
  }
  // Zero coefficients never appear; +-1 never costs a multiply (checked through the count).
  for (const Statement& s : p.statements)
    for (const Term& t : s.terms) REQUIRE(t.coefficient != 0);
  CHECK(p.ops.adds <= dense_op_count(m.rows(), m.cols()).adds);
  CHECK(p.ops.muls <= dense_op_count(m.rows(), m.cols()).muls);
}

std::vector<Source> shipped_sources() {
  std::vector<std::filesystem::path> paths;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(NOVA_SOURCE_DIR) / "configs"))
    if (e.path().extension() == ".json") paths.push_back(e.path());
  return load_sources(paths);
}

bool symmetric(const nova::exact::Transform& t) {
  for (const Rational& a : t.finite_points)
    if (std::find(t.finite_points.begin(), t.finite_points.end(), Rational(-a)) == t.finite_points.end()) return false;
  return true;
}

}  // namespace

TEST_CASE("programs of every shipped config compute the exact matrix product") {
  for (const Source& s : shipped_sources()) {
    DYNAMIC_SECTION(s.config.name) {
      const TransformPrograms p = build_programs(s.config.transform);
      check_exact(s.config.transform.BT, p.input);
      check_exact(s.config.transform.G, p.filter);
      check_exact(s.config.transform.AT, p.output);
    }
  }
}

TEST_CASE("operation counts: never above dense, markedly below it for symmetric point sets") {
  for (const Source& s : shipped_sources()) {
    DYNAMIC_SECTION(s.config.name) {
      for (const TransformStats& t : transform_stats(s.config, build_programs(s.config.transform))) {
        INFO(t.transform);
        CHECK(t.ops_2d.adds <= t.dense_2d.adds);
        CHECK(t.ops_2d.muls <= t.dense_2d.muls);
        // Every shipped set is {0, +-p...}: butterflies must save at least 40% of the dense work.
        if (symmetric(s.config.transform)) CHECK(t.ops_2d.total() <= 0.6 * t.dense_2d.total());
      }
    }
  }
}

TEST_CASE("butterflies are found from the matrix alone, with either sign") {
  // Rows 1 and 2 mirror each other with s = -1 (odd entries agree, even ones flip).
  RationalMatrix m(3, 3);
  const int entries[3][3] = {{1, 0, 0}, {2, 3, 5}, {-2, 3, -5}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m(i, j) = entries[i][j];
  const LinearProgram p = build_linear_program(m, {}, {});
  CHECK(p.sharing == Sharing::row_pairs);
  check_exact(m, p);
  CHECK(p.ops == OpCount{3, 3});  // even 2x0 + 5x2, odd 3x1, then one add each: 1+2 adds, 3 muls
  const std::string body = emit_body(p, "  ");
  CHECK_THAT(body, Catch::Contains("// rows 1, 2: even/odd butterfly"));
  CHECK_THAT(body, Catch::Contains("y[2 * y_stride] = odd_1_2 - even_1_2;"));
  CHECK_THAT(body, Catch::Contains("y[0] = x0;"));
}

TEST_CASE("a common coefficient is multiplied once") {
  RationalMatrix m(1, 3);
  m(0, 0) = Rational(-1, 2);
  m(0, 1) = Rational(1, 2);
  m(0, 2) = Rational(-1, 2);
  const LinearProgram p = build_linear_program(m, {}, {});
  check_exact(m, p);
  CHECK(p.ops == OpCount{2, 1});
  CHECK_THAT(emit_body(p, ""), Catch::Contains("y[0] = -k1_2<T> * (x0 - x1 + x2);"));
}

TEST_CASE("a term without a product comes first, so that the sum contracts into fused multiply-adds") {
  // y = 4 x0 - 5 x2 + x4 (a row of F(4,3)'s B^T): left to right a multiply, a fused multiply-add and an add; with x4
  // first, two fused multiply-adds.
  RationalMatrix m(2, 5);
  m(0, 0) = 4;
  m(0, 2) = -5;
  m(0, 4) = 1;
  m(1, 1) = Rational(1, 2);  // no unit term: the order stays
  m(1, 3) = -3;
  const LinearProgram p = build_linear_program(m, {}, {});
  check_exact(m, p);
  const std::string body = emit_body(p, "");
  CHECK_THAT(body, Catch::Contains("y[0] = x4 + k4<T> * x0 - k5<T> * x2;"));
  CHECK_THAT(body, Catch::Contains("y[y_stride] = k1_2<T> * x1 - k3<T> * x3;"));
}
