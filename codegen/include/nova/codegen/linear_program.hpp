// A 1D transform y = M x with an exact rational matrix M, as straight-line code: one statement
// per output row, zero terms dropped, coefficients +-1 as additions and subtractions, and pairs
// of rows or columns that belong to symmetric points (+-p) shared through even/odd butterflies.
#pragma once

#include "nova/exact/rational.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace nova::codegen {

using exact::Rational;
using exact::RationalMatrix;

// Additions (subtractions included) and multiplications. A negation is a sign modifier of the
// instruction that consumes it on every GPU target, so it is not counted.
struct OpCount {
  int adds = 0;
  int muls = 0;
  int total() const { return adds + muls; }
  OpCount& operator+=(const OpCount& o) {
    adds += o.adds;
    muls += o.muls;
    return *this;
  }
  friend OpCount operator*(int times, OpCount ops) { return {times * ops.adds, times * ops.muls}; }
  friend bool operator==(const OpCount&, const OpCount&) = default;
};

// The dense product of a rows x cols matrix with a vector: rows*cols multiplies, rows*(cols-1) adds.
OpCount dense_op_count(std::size_t rows, std::size_t cols);

struct Operand {
  enum class Kind { input, temp } kind;
  int index;  // x<index>, or the program's temps[index]
  friend bool operator==(const Operand&, const Operand&) = default;
};

struct Term {
  Operand operand;
  Rational coefficient;  // never zero
};

// value = factor * sum(terms). When every coefficient has the same magnitude c != 1, the builder
// moves it into `factor` (one multiply instead of one per term), leaving coefficients +-1.
struct Statement {
  enum class Target { temp, output } target;
  int index;  // output row, or temp index
  std::vector<Term> terms;  // empty: the value is zero
  std::string comment;      // printed on the line before, when not empty
  Rational factor = 1;
};

// How the program shares work between outputs.
enum class Sharing {
  direct,        // every row on its own
  row_pairs,     // rows i, j with M[j][k] = s (-1)^k M[i][k]: even and odd halves computed once
  column_pairs,  // columns p, q with M[i][q] = s (-1)^i M[i][p]: x_p + s x_q and x_p - s x_q computed once
};

struct LinearProgram {
  std::size_t rows = 0, cols = 0;
  Sharing sharing = Sharing::direct;
  std::vector<std::string> temps;        // names, in order of definition
  std::vector<Statement> statements;     // temps before their first use; every output row once
  OpCount ops;
};

// Builds the program with the fewest operations among the three sharings (ties: the simpler one).
// Pairs are found from the matrix entries alone. The labels only name the interpolation point of
// each row or column ("3/5", "inf") in comments; pass an empty vector where rows (or columns) are
// not points, and comments name indices instead.
LinearProgram build_linear_program(const RationalMatrix& matrix, const std::vector<std::string>& row_points,
                                   const std::vector<std::string>& column_points);

// Name of the emitted constant for |value|: 3/5 -> "k3_5", 2 -> "k2".
std::string constant_name(const Rational& magnitude);

// Every coefficient magnitude other than 1 that the program multiplies by.
std::vector<Rational> constants_used(const LinearProgram& program);

// The statements as C++: inputs read from `x[i * x_stride]` into locals first (so y may alias x),
// temps as `const T`, outputs stored to `y[i * y_stride]`. Lines are indented by `indent`.
std::string emit_body(const LinearProgram& program, std::string_view indent);

}  // namespace nova::codegen
