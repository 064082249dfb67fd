#include "nova/exact/rational.hpp"

#include <catch2/catch.hpp>

using namespace nova::exact;

TEST_CASE("parse_rational accepts integers, p/q and finite decimals exactly") {
  CHECK(parse_rational("7") == Rational(7));
  CHECK(parse_rational("-3/5") == Rational(-3) / 5);
  CHECK(parse_rational("+6/4") == Rational(3) / 2);
  CHECK(parse_rational("0.6") == Rational(3) / 5);
  CHECK(parse_rational("-1.25") == Rational(-5) / 4);
  CHECK(parse_rational(".5") == Rational(1) / 2);
  CHECK(parse_rational(" 2 ") == Rational(2));
  // Leading zeros are decimal, never octal (found by fuzzing: "081" and "0.08" threw from GMP).
  CHECK(parse_rational("081") == Rational(81));
  CHECK(parse_rational("0.08") == Rational(2) / 25);
  CHECK(parse_rational("007/010") == Rational(7) / 10);
  CHECK(parse_rational("000") == Rational(0));
}

TEST_CASE("unsigned_error accepts whole numbers up to the bound and explains everything else") {
  CHECK(unsigned_error("0", 5).empty());
  CHECK(unsigned_error("005", 5).empty());
  CHECK(unsigned_error("18446744073709551615", UINT64_MAX).empty());
  CHECK_THAT(unsigned_error("18446744073709551616", UINT64_MAX), Catch::Contains("more than the largest accepted"));
  CHECK_THAT(unsigned_error("6", 5), Catch::Contains("more than the largest accepted, 5"));
  for (const char* bad : {"-1", "", "1e3", "+2", "0x10", " 3"}) CHECK_THAT(unsigned_error(bad, 5), Catch::Contains("whole number"));
}

TEST_CASE("parse_rational rejects malformed text with a message naming it") {
  for (const char* bad : {"abc", "1/0", "", "1/", "/2", "1.2.3", "1e3", "--1", "3/-4", "0x10"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_rational(bad), InputError);
  }
  CHECK_THROWS_WITH(parse_rational("1/0"), Catch::Contains("zero denominator") && Catch::Contains("'1/0'"));
  CHECK_THROWS_WITH(parse_rational("abc"), Catch::Contains("'abc'"));
  CHECK_THROWS_WITH(parse_rational(std::string(100, '9')), Catch::Contains("longer than 64"));
}

TEST_CASE("to_string prints canonical p/q") {
  CHECK(to_string(Rational(6) / 4) == "3/2");
  CHECK(to_string(Rational(-10) / 5) == "-2");
  CHECK(to_string(Rational(0)) == "0");
  CHECK(to_string(parse_rational("-0.125")) == "-1/8");
}

TEST_CASE("points: infinity spellings and lists") {
  CHECK(parse_point("inf").is_infinity);
  CHECK(parse_point("Infinity").is_infinity);
  CHECK_FALSE(parse_point("5/6").is_infinity);
  const auto pts = parse_point_list("0, 3/5,-3/5 ,inf");
  REQUIRE(pts.size() == 4);
  CHECK(pts[1].value == Rational(3) / 5);
  CHECK(pts[3].is_infinity);
  CHECK_THROWS_WITH(parse_point_list("0,,1"), Catch::Contains("empty entry"));
}

TEST_CASE("exact inverse and pseudo-inverse") {
  RationalMatrix m(2, 2);
  m(0, 0) = 1, m(0, 1) = 2, m(1, 0) = 3, m(1, 1) = 4;
  const RationalMatrix inv = inverse(m);
  RationalMatrix id(2, 2);
  id(0, 0) = 1, id(1, 1) = 1;
  CHECK(m * inv == id);

  RationalMatrix wide(2, 3);  // full row rank: M M^+ = I
  wide(0, 0) = 1, wide(0, 1) = Rational(1) / 3, wide(1, 1) = 2, wide(1, 2) = -1;
  CHECK(wide * pseudo_inverse(wide) == id);
  CHECK(pseudo_inverse(wide.transposed()) * wide.transposed() == id);

  RationalMatrix singular(2, 2);
  singular(0, 0) = 1, singular(0, 1) = 2, singular(1, 0) = 2, singular(1, 1) = 4;
  CHECK_THROWS_AS(inverse(singular), std::domain_error);
}
