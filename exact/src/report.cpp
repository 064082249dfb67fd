#include "nova/exact/report.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>

namespace nova::exact {
namespace {

std::string number(double x) {
  char buf[32];
  if (x != 0 && (std::abs(x) >= 1e6 || std::abs(x) < 1e-3)) std::snprintf(buf, sizeof buf, "%.4e", x);
  else std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

struct Row {
  const char* label;
  std::function<std::string(const Config&)> cell;
};

std::string metric(double Metrics::*member, const Config& c) { return number(c.metrics.*member); }

}  // namespace

std::string format_points(const std::vector<Point>& points) {
  std::string out = "{";
  for (std::size_t i = 0; i < points.size(); ++i) out += (i ? ", " : "") + to_string(points[i]);
  return out + "}";
}

std::string format_metrics_table(const std::vector<Config>& configs) {
  using M = Metrics;
  const std::vector<Row> rows = {
      {"scaling", [](const Config& c) { return std::string(scaling_name(c.transform.scaling)); }},
      {"exact identity", [](const Config& c) { return std::string(c.verified_2d ? "1D+2D hold" : "1D holds"); }},
      {"kappa2(V)", [](const Config& c) { return metric(&M::kappa2_V, c); }},
      {"kappa1(V)", [](const Config& c) { return metric(&M::kappa1_V, c); }},
      {"kappaInf(V)", [](const Config& c) { return metric(&M::kappaInf_V, c); }},
      {"kappaF(V)", [](const Config& c) { return metric(&M::kappaF_V, c); }},
      {"kappa2(AT)", [](const Config& c) { return metric(&M::kappa2_AT, c); }},
      {"kappa2(G)", [](const Config& c) { return metric(&M::kappa2_G, c); }},
      {"kappa2(BT)", [](const Config& c) { return metric(&M::kappa2_BT, c); }},
      {"kappa2 2D", [](const Config& c) { return metric(&M::kappa2_2d, c); }},
      {"max|AT|", [](const Config& c) { return metric(&M::max_abs_AT, c); }},
      {"max|G|", [](const Config& c) { return metric(&M::max_abs_G, c); }},
      {"max|BT|", [](const Config& c) { return metric(&M::max_abs_BT, c); }},
      {"|A|2 |B|2 |G|2", [](const Config& c) { return metric(&M::norm_product, c); }},
      {"amp2D", [](const Config& c) { return metric(&M::amp2d, c); }},
      {"pred. err fp16", [](const Config& c) { return metric(&M::predicted_error_fp16, c); }},
      {"pred. err bf16", [](const Config& c) { return metric(&M::predicted_error_bf16, c); }},
  };
  std::size_t label_width = 6;
  for (const auto& r : rows) label_width = std::max(label_width, std::string(r.label).size());
  std::vector<std::size_t> widths;
  for (const auto& c : configs) {
    std::size_t w = c.name.size();
    for (const auto& r : rows) w = std::max(w, r.cell(c).size());
    widths.push_back(w);
  }
  auto line = [&](const std::string& label, const std::function<std::string(std::size_t)>& cell) {
    std::string out = label + std::string(label_width - label.size() + 2, ' ');
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const std::string v = cell(i);
      out += std::string(widths[i] - v.size(), ' ') + v + (i + 1 < configs.size() ? "  " : "");
    }
    return out + "\n";
  };
  std::string out;
  for (const auto& c : configs) out += c.name + " points " + format_points(c.transform.points()) + "\n";
  out += line("metric", [&](std::size_t i) { return configs[i].name; });
  for (const auto& r : rows) out += line(r.label, [&](std::size_t i) { return r.cell(configs[i]); });
  return out;
}

std::string format_improvements(const Config& result, const std::vector<Config>& baselines) {
  std::size_t width = 0;
  for (const auto& b : baselines) width = std::max(width, b.name.size());
  std::string out = "improvement of " + result.name + " (baseline / result):\n";
  for (const auto& b : baselines)
    out += "  vs " + b.name + std::string(width - b.name.size(), ' ') + "  kappa2(V) " +
           number(b.metrics.kappa2_V / result.metrics.kappa2_V) + "x   amp2D " +
           number(b.metrics.amp2d / result.metrics.amp2d) + "x\n";
  return out;
}

}  // namespace nova::exact
