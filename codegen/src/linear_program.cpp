#include "nova/codegen/linear_program.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

namespace nova::codegen {
namespace {

constexpr std::size_t kLineWidth = 100;

struct Pair {
  std::size_t first, second;
  int sign;  // s in M[second] = s (-1)^k M[first]
};

bool is_unit(const Rational& c) { return abs(c) == 1; }

OpCount statement_ops(const Statement& s) {
  if (s.terms.empty()) return {};
  OpCount ops{static_cast<int>(s.terms.size()) - 1, is_unit(s.factor) ? 0 : 1};
  for (const Term& t : s.terms)
    if (!is_unit(t.coefficient)) ++ops.muls;
  return ops;
}

// c (x + y - z) for c x + c y - c z: a common magnitude c != 1 of two or more terms moves into
// the factor, signed so that the first term in the parentheses is positive.
void factor_common_magnitude(Statement& s) {
  if (s.terms.size() < 2) return;
  const Rational c = abs(s.terms.front().coefficient);
  if (c == 1 || !std::all_of(s.terms.begin(), s.terms.end(), [&](const Term& t) { return abs(t.coefficient) == c; }))
    return;
  s.factor = s.terms.front().coefficient;
  for (Term& t : s.terms) t.coefficient /= s.factor;
}

// A term of unit coefficient first, where the statement has one and starts with a product: compilers contract a sum
// left to right into fused multiply-adds, so a first term without a product saves the multiplication that a first
// product costs (k * b + a: a multiply and a fused multiply-add; a + k * b: one). The other terms keep their order.
// The loader's programs (nova::jit) run the terms in this order too.
void unit_term_first(Statement& s) {
  if (s.terms.size() < 3 || is_unit(s.terms.front().coefficient)) return;  // k a + b contracts to one FMA as it is
  const auto unit = std::find_if(s.terms.begin(), s.terms.end(), [](const Term& t) { return is_unit(t.coefficient); });
  if (unit != s.terms.end()) std::rotate(s.terms.begin(), unit, unit + 1);
}

// The sign s with b(k) = s (-1)^k a(k) for every k < count, if there is one and a is not all zero.
template <typename A, typename B>
std::optional<int> mirror_sign(std::size_t count, A a, B b) {
  int sign = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const Rational flipped = k % 2 ? Rational(-a(k)) : Rational(a(k));
    if (flipped == 0) {
      if (b(k) != 0) return std::nullopt;
      continue;
    }
    const int s = b(k) == flipped ? 1 : b(k) == -flipped ? -1 : 0;
    if (s == 0 || (sign != 0 && s != sign)) return std::nullopt;
    sign = s;
  }
  if (sign == 0) return std::nullopt;
  return sign;
}

std::string pair_label(const std::vector<std::string>& points, const char* what, const Pair& p) {
  if (points.empty()) return std::string(what) + " " + std::to_string(p.first) + ", " + std::to_string(p.second);
  return "points " + points[p.first] + ", " + points[p.second];
}

class ProgramBuilder {
 public:
  explicit ProgramBuilder(const RationalMatrix& m) {
    program_.rows = m.rows();
    program_.cols = m.cols();
  }

  int add_temp(std::string name, std::vector<Term> terms, std::string comment = {}) {
    const int index = static_cast<int>(program_.temps.size());
    program_.temps.push_back(std::move(name));
    add(Statement{Statement::Target::temp, index, std::move(terms), std::move(comment)});
    return index;
  }

  void add_output(std::size_t row, std::vector<Term> terms) {
    add(Statement{Statement::Target::output, static_cast<int>(row), std::move(terms), {}});
  }

  LinearProgram finish(Sharing sharing) {
    program_.sharing = sharing;
    return std::move(program_);
  }

 private:
  void add(Statement s) {
    factor_common_magnitude(s);
    unit_term_first(s);
    program_.ops += statement_ops(s);
    program_.statements.push_back(std::move(s));
  }
  LinearProgram program_;
};

Term input_term(std::size_t column, const Rational& coefficient) {
  return Term{{Operand::Kind::input, static_cast<int>(column)}, coefficient};
}
Term temp_term(int temp, int coefficient) { return Term{{Operand::Kind::temp, temp}, Rational(coefficient)}; }

std::vector<Term> row_terms(const RationalMatrix& m, std::size_t row, int parity /* 0 even, 1 odd, -1 all */) {
  std::vector<Term> terms;
  for (std::size_t k = 0; k < m.cols(); ++k)
    if (m(row, k) != 0 && (parity < 0 || static_cast<int>(k % 2) == parity)) terms.push_back(input_term(k, m(row, k)));
  return terms;
}

LinearProgram build_with_row_pairs(const RationalMatrix& m, const std::vector<Pair>& pairs,
                                   const std::vector<std::string>& row_points) {
  ProgramBuilder b(m);
  std::vector<const Pair*> pair_of(m.rows(), nullptr);
  for (const Pair& p : pairs) pair_of[p.first] = pair_of[p.second] = &p;
  for (std::size_t i = 0; i < m.rows(); ++i) {
    const Pair* p = pair_of[i];
    if (!p) {
      b.add_output(i, row_terms(m, i, -1));
    } else if (p->first == i) {
      const std::string suffix = std::to_string(p->first) + "_" + std::to_string(p->second);
      const int even = b.add_temp("even_" + suffix, row_terms(m, i, 0),
                                  pair_label(row_points, "rows", *p) + ": even/odd butterfly");
      const int odd = b.add_temp("odd_" + suffix, row_terms(m, i, 1));
      b.add_output(p->first, {temp_term(even, 1), temp_term(odd, 1)});
      if (p->sign > 0) b.add_output(p->second, {temp_term(even, 1), temp_term(odd, -1)});
      else b.add_output(p->second, {temp_term(odd, 1), temp_term(even, -1)});
    }
  }
  return b.finish(Sharing::row_pairs);
}

LinearProgram build_with_column_pairs(const RationalMatrix& m, const std::vector<Pair>& pairs,
                                      const std::vector<std::string>& column_points) {
  ProgramBuilder b(m);
  // x_p + s x_q feeds the even rows, x_p - s x_q the odd ones; each is built only if used.
  std::vector<const Pair*> pair_of(m.cols(), nullptr);
  std::vector<int> sum_temp(m.cols(), -1), difference_temp(m.cols(), -1);
  for (const Pair& p : pairs) {
    pair_of[p.first] = pair_of[p.second] = &p;
    bool even_used = false, odd_used = false;
    for (std::size_t i = 0; i < m.rows(); ++i)
      if (m(i, p.first) != 0) (i % 2 ? odd_used : even_used) = true;
    const std::string suffix = std::to_string(p.first) + "_" + std::to_string(p.second);
    std::string comment = pair_label(column_points, "columns", p) + ": sum for the even rows, difference for the odd rows";
    if (even_used)
      sum_temp[p.first] = b.add_temp("sum_" + suffix, {input_term(p.first, 1), input_term(p.second, p.sign)},
                                     std::exchange(comment, {}));
    if (odd_used)
      difference_temp[p.first] =
          b.add_temp("dif_" + suffix, {input_term(p.first, 1), input_term(p.second, -p.sign)}, std::move(comment));
  }
  for (std::size_t i = 0; i < m.rows(); ++i) {
    std::vector<Term> terms;
    for (std::size_t k = 0; k < m.cols(); ++k) {
      if (m(i, k) == 0 || (pair_of[k] && pair_of[k]->second == k)) continue;
      if (!pair_of[k]) {
        terms.push_back(input_term(k, m(i, k)));
      } else {
        const int temp = i % 2 ? difference_temp[k] : sum_temp[k];
        terms.push_back(Term{{Operand::Kind::temp, temp}, m(i, k)});
      }
    }
    b.add_output(i, std::move(terms));
  }
  return b.finish(Sharing::column_pairs);
}

// Greedy: walk the candidates in order and keep each pair that makes the program strictly cheaper.
template <typename Build>
LinearProgram best_pairing(std::size_t count, const std::vector<Pair>& candidates, Build build) {
  std::vector<Pair> chosen;
  LinearProgram best = build(chosen);
  std::vector<bool> used(count, false);
  for (const Pair& c : candidates) {
    if (used[c.first] || used[c.second]) continue;
    chosen.push_back(c);
    LinearProgram trial = build(chosen);
    if (trial.ops.total() < best.ops.total()) {
      best = std::move(trial);
      used[c.first] = used[c.second] = true;
    } else {
      chosen.pop_back();
    }
  }
  return best;
}

std::vector<Pair> row_pair_candidates(const RationalMatrix& m) {
  std::vector<Pair> out;
  for (std::size_t i = 0; i < m.rows(); ++i)
    for (std::size_t j = i + 1; j < m.rows(); ++j)
      if (const auto s = mirror_sign(m.cols(), [&](std::size_t k) { return m(i, k); }, [&](std::size_t k) { return m(j, k); }))
        out.push_back({i, j, *s});
  return out;
}

std::vector<Pair> column_pair_candidates(const RationalMatrix& m) {
  std::vector<Pair> out;
  for (std::size_t p = 0; p < m.cols(); ++p)
    for (std::size_t q = p + 1; q < m.cols(); ++q)
      if (const auto s = mirror_sign(m.rows(), [&](std::size_t i) { return m(i, p); }, [&](std::size_t i) { return m(i, q); }))
        out.push_back({p, q, *s});
  return out;
}

std::string operand_text(const LinearProgram& program, const Operand& o) {
  return o.kind == Operand::Kind::input ? "x" + std::to_string(o.index) : program.temps[static_cast<std::size_t>(o.index)];
}

std::string strided(const char* array, const char* stride, int index) {
  if (index == 0) return std::string(array) + "[0]";
  if (index == 1) return std::string(array) + "[" + stride + "]";
  return std::string(array) + "[" + std::to_string(index) + " * " + stride + "]";
}

std::string product_text(const LinearProgram& program, const Term& t) {
  const std::string operand = operand_text(program, t.operand);
  return is_unit(t.coefficient) ? operand : constant_name(abs(t.coefficient)) + "<T> * " + operand;
}

// "lhs = a - k * b + c;", wrapped before a '+' or '-' once a line would pass kLineWidth.
std::string statement_text(const LinearProgram& program, const Statement& s, std::string_view indent) {
  std::string lhs = s.target == Statement::Target::output
                        ? strided("y", "y_stride", s.index)
                        : "const T " + program.temps[static_cast<std::size_t>(s.index)];
  std::vector<std::string> pieces;
  for (const Term& t : s.terms) {
    const bool negative = t.coefficient < 0;
    if (pieces.empty()) pieces.push_back((negative ? "-" : "") + product_text(program, t));
    else pieces.push_back(std::string(negative ? "- " : "+ ") + product_text(program, t));
  }
  if (pieces.empty()) pieces.push_back("T(0)");
  if (!is_unit(s.factor)) {
    pieces.front() = (s.factor < 0 ? "-" : "") + constant_name(abs(s.factor)) + "<T> * (" + pieces.front();
    pieces.back() += ")";
  }
  std::string text, line = std::string(indent) + lhs + " =";
  for (const std::string& piece : pieces) {
    if (line.size() + 1 + piece.size() > kLineWidth) {
      text += line + "\n";
      line = std::string(indent) + "    " + piece;
    } else {
      line += " " + piece;
    }
  }
  return text + line + ";\n";
}

}  // namespace

OpCount dense_op_count(std::size_t rows, std::size_t cols) {
  return {static_cast<int>(rows * (cols - 1)), static_cast<int>(rows * cols)};
}

LinearProgram build_linear_program(const RationalMatrix& m, const std::vector<std::string>& row_points,
                                   const std::vector<std::string>& column_points) {
  LinearProgram best = build_with_row_pairs(m, {}, row_points);
  best.sharing = Sharing::direct;
  LinearProgram rows = best_pairing(m.rows(), row_pair_candidates(m),
                                    [&](const std::vector<Pair>& p) { return build_with_row_pairs(m, p, row_points); });
  LinearProgram columns =
      best_pairing(m.cols(), column_pair_candidates(m),
                   [&](const std::vector<Pair>& p) { return build_with_column_pairs(m, p, column_points); });
  for (LinearProgram* candidate : {&rows, &columns})
    if (candidate->ops.total() < best.ops.total()) best = std::move(*candidate);
  return best;
}

std::string constant_name(const Rational& magnitude) {
  const auto num = boost::multiprecision::numerator(magnitude);
  const auto den = boost::multiprecision::denominator(magnitude);
  return "k" + num.str() + (den == 1 ? "" : "_" + den.str());
}

std::vector<Rational> constants_used(const LinearProgram& program) {
  std::vector<Rational> out;
  const auto note = [&](const Rational& c) {
    if (!is_unit(c) && std::find(out.begin(), out.end(), abs(c)) == out.end()) out.push_back(abs(c));
  };
  for (const Statement& s : program.statements) {
    note(s.factor);
    for (const Term& t : s.terms) note(t.coefficient);
  }
  return out;
}

std::string emit_body(const LinearProgram& program, std::string_view indent) {
  std::set<int> inputs;
  for (const Statement& s : program.statements)
    for (const Term& t : s.terms)
      if (t.operand.kind == Operand::Kind::input) inputs.insert(t.operand.index);
  std::string text;
  for (int i : inputs) text += std::string(indent) + "const T x" + std::to_string(i) + " = " + strided("x", "x_stride", i) + ";\n";
  for (const Statement& s : program.statements) {
    if (!s.comment.empty()) text += std::string(indent) + "// " + s.comment + "\n";
    text += statement_text(program, s, indent);
  }
  return text;
}

}  // namespace nova::codegen
