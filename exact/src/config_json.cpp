#include "nova/exact/config_json.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <utility>

namespace nova::exact {
namespace {

using nlohmann::json;

// One table drives writing, reading and checking the metrics, so the three cannot drift apart.
constexpr std::pair<const char*, double Metrics::*> kMetricFields[] = {
    {"kappa1_V", &Metrics::kappa1_V},
    {"kappa2_V", &Metrics::kappa2_V},
    {"kappaInf_V", &Metrics::kappaInf_V},
    {"kappaF_V", &Metrics::kappaF_V},
    {"kappa2_AT", &Metrics::kappa2_AT},
    {"kappa2_G", &Metrics::kappa2_G},
    {"kappa2_BT", &Metrics::kappa2_BT},
    {"kappa2_2d", &Metrics::kappa2_2d},
    {"max_abs_AT", &Metrics::max_abs_AT},
    {"max_abs_G", &Metrics::max_abs_G},
    {"max_abs_BT", &Metrics::max_abs_BT},
    {"max_abs_entry", &Metrics::max_abs_entry},
    {"norm_product", &Metrics::norm_product},
    {"amp2D", &Metrics::amp2d},
    {"predicted_error_fp16", &Metrics::predicted_error_fp16},
    {"predicted_error_bf16", &Metrics::predicted_error_bf16},
};

// Stored metrics are rounded to 6 significant digits: readable, and stable across machines.
constexpr double kMetricTolerance = 1e-5;

double round_significant(double x) {
  if (x == 0 || !std::isfinite(x)) return x;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return std::stod(buf);
}

[[noreturn]] void fail(const std::string& source, const std::string& field, const std::string& why) {
  throw InputError(source + ": field '" + field + "': " + why);
}

const json& require(const json& obj, const char* key, const std::string& source, const std::string& prefix = "") {
  const std::string field = prefix + key;
  if (!obj.is_object() || !obj.contains(key)) fail(source, field, "missing");
  return obj.at(key);
}

std::string require_string(const json& obj, const char* key, const std::string& source, const std::string& prefix = "") {
  const json& v = require(obj, key, source, prefix);
  if (!v.is_string()) fail(source, prefix + key, "expected a string");
  return v.get<std::string>();
}

int require_int(const json& obj, const char* key, const std::string& source, const std::string& prefix) {
  const json& v = require(obj, key, source, prefix);
  if (!v.is_number_integer()) fail(source, prefix + key, "expected an integer");
  const auto value = v.get<long long>();
  if (value < -1000000 || value > 1000000) fail(source, prefix + key, "out of range");
  return static_cast<int>(value);
}

json matrix_to_json(const RationalMatrix& m) {
  json rows = json::array();
  for (std::size_t i = 0; i < m.rows(); ++i) {
    json row = json::array();
    for (std::size_t j = 0; j < m.cols(); ++j) row.push_back(to_string(m(i, j)));
    rows.push_back(std::move(row));
  }
  return rows;
}

RationalMatrix matrix_from_json(const json& doc, const char* key, std::size_t rows, std::size_t cols,
                                const std::string& source) {
  const json& v = require(doc, key, source);
  const std::string shape = std::to_string(rows) + "x" + std::to_string(cols);
  if (!v.is_array() || v.size() != rows) fail(source, key, "expected " + shape + " (array of " + std::to_string(rows) + " rows)");
  RationalMatrix m(rows, cols);
  for (std::size_t i = 0; i < rows; ++i) {
    const std::string row_field = std::string(key) + "[" + std::to_string(i) + "]";
    if (!v[i].is_array() || v[i].size() != cols) fail(source, row_field, "expected a row of " + std::to_string(cols) + " entries");
    for (std::size_t j = 0; j < cols; ++j) {
      const std::string field = row_field + "[" + std::to_string(j) + "]";
      if (!v[i][j].is_string()) fail(source, field, "expected a \"p/q\" string");
      try {
        m(i, j) = parse_rational(v[i][j].get<std::string>());
      } catch (const InputError& e) {
        fail(source, field, e.what());
      }
    }
  }
  return m;
}

// First entry where two matrices differ, as "AT[i][j] is x, expected y"; empty if equal.
std::string first_difference(const char* name, const RationalMatrix& stored, const RationalMatrix& rebuilt) {
  for (std::size_t i = 0; i < stored.rows(); ++i)
    for (std::size_t j = 0; j < stored.cols(); ++j)
      if (stored(i, j) != rebuilt(i, j))
        return std::string(name) + "[" + std::to_string(i) + "][" + std::to_string(j) + "] is " + to_string(stored(i, j)) +
               ", expected " + to_string(rebuilt(i, j)) + " from the points and scaling";
  return {};
}

std::string naming_pattern(TileSize tile) {
  return "f" + std::to_string(tile.m) + "x" + std::to_string(tile.r) + "_<pointset> (lower-case letters, digits, '_')";
}

}  // namespace

Config make_config(std::string name, Transform transform, bool verify_2d, json provenance) {
  if (const auto v = verify_identity_1d(transform.tile, transform.AT, transform.G, transform.BT); !v.ok)
    throw InputError("construction failed verification: " + v.message);
  if (verify_2d)
    if (const auto v = verify_identity_2d(transform.tile, transform.AT, transform.G, transform.BT); !v.ok)
      throw InputError("construction failed verification: " + v.message);
  Metrics metrics = compute_metrics(transform);
  for (const auto& [key, member] : kMetricFields) {
    if (!std::isfinite(metrics.*member))
      throw InputError(std::string("metric ") + key + " is not finite: the points are too large or too close together");
    metrics.*member = round_significant(metrics.*member);
  }
  return Config{std::move(name), std::move(transform), metrics, verify_2d, std::move(provenance), {}};
}

json to_json(const Config& c) {
  json points = json::array();
  for (const auto& p : c.transform.points()) points.push_back(to_string(p));
  json metrics = json::object();
  for (const auto& [key, member] : kMetricFields) metrics[key] = c.metrics.*member;
  metrics["method"] = kMetricsMethod;
  json doc{
      {"schema", kSchemaName},
      {"name", c.name},
      {"tile", {{"m", c.transform.tile.m}, {"r", c.transform.tile.r}}},
      {"points", points},
      {"scaling", scaling_name(c.transform.scaling)},
      {"AT", matrix_to_json(c.transform.AT)},
      {"G", matrix_to_json(c.transform.G)},
      {"BT", matrix_to_json(c.transform.BT)},
      {"verification",
       {{"exact", true},
        {"method", "rational tensor identity"},
        {"identity", c.verified_2d ? "1d+2d" : "1d"}}},
      {"metrics", metrics},
      {"provenance", c.provenance},
  };
  if (!c.aliases.empty()) doc["aliases"] = c.aliases;
  return doc;
}

void check_aliases(const Config& c) {
  for (auto alias = c.aliases.begin(); alias != c.aliases.end(); ++alias) {
    if (!follows_naming(c.transform.tile, *alias))
      throw InputError("alias '" + *alias + "' does not follow " + naming_pattern(c.transform.tile));
    if (*alias == c.name) throw InputError("alias '" + *alias + "' is the config's own name");
    if (std::find(c.aliases.begin(), alias, *alias) != alias) throw InputError("alias '" + *alias + "' appears twice");
  }
}

std::string serialise(const Config& config) {
  // nlohmann's default object order is sorted by key; keep the schema's reading order instead.
  const json doc = to_json(config);
  std::ostringstream out;
  out << "{\n";
  std::vector<const char*> order = {"schema", "name", "tile", "points", "scaling", "AT", "G", "BT", "verification",
                                    "metrics", "provenance"};
  if (doc.contains("aliases")) order.insert(order.begin() + 2, "aliases");
  for (std::size_t i = 0; i < std::size(order); ++i) {
    const json& v = doc.at(order[i]);
    out << "  " << json(order[i]).dump() << ": ";
    if (v.is_array() && !v.empty() && v.front().is_array()) {  // matrices: one row per line
      out << "[\n";
      for (std::size_t r = 0; r < v.size(); ++r) out << "    " << v[r].dump() << (r + 1 < v.size() ? ",\n" : "\n");
      out << "  ]";
    } else {
      out << v.dump();
    }
    out << (i + 1 < std::size(order) ? ",\n" : "\n");
  }
  out << "}\n";
  return out.str();
}

Config config_from_json(const json& doc, const std::string& source) {
  if (!doc.is_object()) throw InputError(source + ": expected a JSON object at the top level");
  if (const auto schema = require_string(doc, "schema", source); schema != kSchemaName)
    fail(source, "schema", "is '" + schema + "', expected '" + kSchemaName + "'");

  Config c;
  const json& tile = require(doc, "tile", source);
  TileSize size{require_int(tile, "m", source, "tile."), require_int(tile, "r", source, "tile.")};
  try {
    validate_tile(size);
  } catch (const InputError& e) {
    fail(source, "tile", e.what());
  }

  c.name = require_string(doc, "name", source);
  if (!follows_naming(size, c.name)) fail(source, "name", "'" + c.name + "' does not follow " + naming_pattern(size));

  const json& pts = require(doc, "points", source);
  if (!pts.is_array()) fail(source, "points", "expected an array of strings");
  std::vector<Point> points;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    if (!pts[i].is_string()) fail(source, "points[" + std::to_string(i) + "]", "expected a string");
    try {
      points.push_back(parse_point(pts[i].get<std::string>()));
    } catch (const InputError& e) {
      fail(source, "points[" + std::to_string(i) + "]", e.what());
    }
  }
  if (points.empty() || !points.back().is_infinity) fail(source, "points", "the last point must be \"inf\"");

  Transform& t = c.transform;
  t.tile = size;
  try {
    t.finite_points = finite_points_for_tile(size, points);
    t.scaling = parse_scaling(require_string(doc, "scaling", source));
  } catch (const InputError& e) {
    fail(source, doc.contains("scaling") && points.size() == static_cast<std::size_t>(size.n()) ? "scaling" : "points", e.what());
  }
  const auto m = static_cast<std::size_t>(size.m), r = static_cast<std::size_t>(size.r), n = static_cast<std::size_t>(size.n());
  t.AT = matrix_from_json(doc, "AT", m, n, source);
  t.G = matrix_from_json(doc, "G", n, r, source);
  t.BT = matrix_from_json(doc, "BT", n, n, source);

  const json& ver = require(doc, "verification", source);
  if (!require(ver, "exact", source, "verification.").is_boolean() || !ver.at("exact").get<bool>())
    fail(source, "verification.exact", "must be true: only exactly verified transforms are stored");
  const std::string identity = require_string(ver, "identity", source, "verification.");
  if (identity != "1d" && identity != "1d+2d") fail(source, "verification.identity", "expected \"1d\" or \"1d+2d\"");
  c.verified_2d = identity == "1d+2d";

  const json& metrics = require(doc, "metrics", source);
  for (const auto& [key, member] : kMetricFields) {
    const json& v = require(metrics, key, source, "metrics.");
    if (!v.is_number() || !std::isfinite(v.get<double>())) fail(source, std::string("metrics.") + key, "expected a finite number");
    c.metrics.*member = v.get<double>();
  }

  c.provenance = require(doc, "provenance", source);
  if (!c.provenance.is_object()) fail(source, "provenance", "expected an object");
  require_string(c.provenance, "tool", source, "provenance.");
  require_string(c.provenance, "command", source, "provenance.");

  if (doc.contains("aliases")) {
    const json& aliases = doc.at("aliases");
    if (!aliases.is_array()) fail(source, "aliases", "expected an array of transform names");
    for (std::size_t i = 0; i < aliases.size(); ++i) {
      if (!aliases[i].is_string()) fail(source, "aliases[" + std::to_string(i) + "]", "expected a string");
      c.aliases.push_back(aliases[i].get<std::string>());
    }
    try {
      check_aliases(c);
    } catch (const InputError& e) {
      fail(source, "aliases", e.what());
    }
  }
  return c;
}

Config parse_config(const std::string& text, const std::string& source) {
  // Deeper documents are refused while parsing: copying one recursively would exhaust the stack.
  const json::parser_callback_t depth_guard = [&](int depth, json::parse_event_t, json&) {
    if (depth > kMaxConfigDepth)
      throw InputError(source + ": JSON nested deeper than " + std::to_string(kMaxConfigDepth) + " levels");
    return true;
  };
  json doc;
  try {
    doc = json::parse(text, depth_guard);
  } catch (const json::exception& e) {  // syntax, and numbers beyond double ("1e9999")
    throw InputError(source + ": malformed JSON: " + e.what());
  }
  return config_from_json(doc, source);
}

Config read_config(const std::filesystem::path& path) {
  return parse_config(read_text_file(path, kMaxConfigBytes), path.string());
}

void write_config(const std::filesystem::path& path, const Config& config) { write_text_atomic(path, serialise(config)); }

Verification verify_config(const Config& c) {
  const Transform& stored = c.transform;
  const Transform rebuilt = build_transform(stored.tile, stored.finite_points, stored.scaling);
  for (const auto& diff : {first_difference("AT", stored.AT, rebuilt.AT), first_difference("G", stored.G, rebuilt.G),
                           first_difference("BT", stored.BT, rebuilt.BT)})
    if (!diff.empty()) return {false, diff};
  if (auto v = verify_identity_1d(stored.tile, stored.AT, stored.G, stored.BT); !v.ok) return v;
  if (c.verified_2d)
    if (auto v = verify_identity_2d(stored.tile, stored.AT, stored.G, stored.BT); !v.ok) return v;
  const Metrics fresh = compute_metrics(rebuilt);
  for (const auto& [key, member] : kMetricFields) {
    const double want = fresh.*member, have = c.metrics.*member;
    if (std::abs(have - want) > kMetricTolerance * std::max(std::abs(want), 1e-300))
      return {false, std::string("metrics.") + key + " is " + std::to_string(have) + ", recomputed " + std::to_string(want)};
  }
  return {};
}

}  // namespace nova::exact
