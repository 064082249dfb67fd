#include "nova/errlab/report.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

using namespace nova::errlab;

namespace {

Measurement row(const std::string& name, double kappa, double amp, double error) {
  Measurement m;
  m.config = name;
  m.tile = {6, 3};
  m.points = "0 1 -1 inf";
  m.kappa2_V = kappa;
  m.amp2d = amp;
  m.stats.tiles = 64;
  m.stats.outputs = 64 * 36;
  m.stats.sum_sq_reference = 1.0;
  m.stats.sum_sq_error = error * error;
  return m;
}

RunSettings settings() { return {"kernel-fp16", preset("kernel-fp16"), ExperimentSpec{}}; }

}  // namespace

TEST_CASE("Pearson correlation", "[report]") {
  CHECK(pearson({1, 2, 3, 4}, {2, 4, 6, 8}) == Approx(1.0));
  CHECK(pearson({1, 2, 3, 4}, {8, 6, 4, 2}) == Approx(-1.0));
  CHECK(pearson({1, 2, 3}, {1, 3, 2}) == Approx(0.5));
  CHECK(std::isnan(pearson({1, 1, 1}, {1, 2, 3})));
}

TEST_CASE("log correlation: error proportional to amp2D gives r = 1, bad rows are left out", "[report]") {
  std::vector<Measurement> rows = {row("a", 10, 1, 1e-4), row("b", 5, 10, 1e-3), row("c", 100, 100, 1e-2),
                                   row("d", 50, 1000, 1e-1)};
  rows.push_back(row("overflowed", 1e5, 1e5, 0));
  rows.back().stats.sum_sq_error = INFINITY;
  const LogCorrelation c = log_correlation(rows);
  CHECK(c.count == 4);
  CHECK(c.with_amp2d == Approx(1.0));
  CHECK(c.with_kappa2_V < 0.9);
  CHECK(log_correlation({rows[0], rows[1]}).count == 2);
  CHECK(std::isnan(log_correlation({rows[0], rows[1]}).with_amp2d));
}

TEST_CASE("CSV: a header and one line per row with the model in every line", "[report]") {
  const std::string csv = format_csv(settings(), {row("f6x3_a", 1, 2, 0.5), row("f6x3_b", 1, 2, 0.25)});
  std::istringstream in(csv);
  std::string header, first, second, extra;
  std::getline(in, header);
  std::getline(in, first);
  std::getline(in, second);
  CHECK_FALSE(std::getline(in, extra));
  CHECK(header.rfind("config,m,r,points,scaling,kappa2_V,amp2D,model,", 0) == 0);
  CHECK(first.rfind("f6x3_a,6,3,0 1 -1 inf,G,1,2,kernel-fp16,fp16,", 0) == 0);
  const auto columns = [](const std::string& line) { return std::count(line.begin(), line.end(), ','); };
  CHECK(columns(first) == columns(header));
  CHECK(second.find(",0.25,") != std::string::npos);
}

TEST_CASE("JSON: parses, carries the model and writes undefined numbers as null", "[report]") {
  std::vector<Measurement> rows = {row("f6x3_a", 1, 2, 0.5)};
  rows[0].stats.sum_sq_error = INFINITY;
  const auto doc = nlohmann::json::parse(format_json(settings(), rows));
  CHECK(doc["model"]["transformed_input"] == "fp16");
  CHECK(doc["results"][0]["config"] == "f6x3_a");
  CHECK(doc["results"][0]["rel_l2_error"].is_null());
  CHECK(doc["correlation"]["rows"] == 0);
}

TEST_CASE("table: one line per config with the prediction beside the measurement", "[report]") {
  Measurement m = row("f6x3_a", 76.6, 146.9, 0.0432);
  m.predicted_error = 0.0502;
  const std::string table = format_table(settings(), {m});
  CHECK(table.find("model: kernel-fp16 (input=fp16") != std::string::npos);
  CHECK(table.find("0.7*u*amp2D") != std::string::npos);
  CHECK(table.find("f6x3_a") != std::string::npos);
  CHECK(table.find("0.0432") != std::string::npos);
  CHECK(table.find("0.0502") != std::string::npos);
}
