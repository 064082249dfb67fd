// Exact rationals as the floating-point values the emitted code uses: correctly rounded (to
// nearest, ties to even) from the exact value, never through an intermediate double.
#pragma once

#include "nova/exact/rational.hpp"

#include <string>
#include <vector>

namespace nova::codegen {

// Throws exact::InputError when the value lies outside the type's normal range: a transform
// constant there would lose precision (subnormal) or overflow, and must not be emitted silently.
float round_to_float(const exact::Rational& value);
double round_to_double(const exact::Rational& value);

// A matrix row-major, each entry round_to_double'd: the double tables generated/registry.cpp holds for
// a built-in transform, and a loaded transform's.
std::vector<double> row_major_doubles(const exact::RationalMatrix& m);

// Shortest C++ literal that reads back as exactly that value: "0.6f", "2.0f"; "0.6", "2.0".
std::string float_literal(float value);
std::string double_literal(double value);

}  // namespace nova::codegen
