#include "nova/errlab/report.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <sstream>

namespace nova::errlab {
namespace {

std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

// The relative error, or why there is none: a reference that is zero everywhere (the inputs
// vanished) must never read as a perfect score.
std::string error_text(const ErrorStats& s) {
  return std::isnan(s.rel_l2_error()) ? "undefined (reference is 0)" : number(s.rel_l2_error());
}

std::string scaling_label(exact::Scaling s) {
  switch (s) {
    case exact::Scaling::DenominatorsInG: return "G";
    case exact::Scaling::DenominatorsInA: return "A";
    case exact::Scaling::DenominatorsInB: return "B";
    case exact::Scaling::Balanced: return "balanced";
    case exact::Scaling::BalancedUnits: return "units";
  }
  return "?";
}

std::string data_line(const RunSettings& run) {
  const ExperimentSpec& s = run.spec;
  const LayerShape shape = layer_shape(s);
  std::ostringstream out;
  out << "data: input " << to_string(s.input_distribution) << " x" << number(s.input_scale) << ", filters "
      << to_string(s.filter_distribution) << " x" << number(s.filter_scale) << "; C=" << s.channels
      << " K=" << s.filters << "; " << shape.tiles() << " tiles (" << shape.layers << " layer instance(s) of "
      << shape.positions << " positions x " << s.filters << " filters); seed " << s.seed;
  return out.str();
}

// Left-aligns every column to its widest cell.
std::string render(const std::vector<std::vector<std::string>>& cells) {
  std::vector<std::size_t> width;
  for (const auto& row : cells)
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], row[i].size());
    }
  std::string out;
  for (const auto& row : cells) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace

Measurement measure_config(const exact::Config& config, std::optional<exact::Scaling> rescale,
                           const PrecisionModel& model, const ExperimentSpec& spec, const Progress& progress) {
  const exact::Transform& stored = config.transform;
  const exact::Transform transform =
      rescale ? exact::build_transform(stored.tile, stored.finite_points, *rescale) : stored;
  Measurement row;
  row.config = config.name;
  row.tile = transform.tile;
  for (const auto& p : transform.points()) row.points += (row.points.empty() ? "" : " ") + exact::to_string(p);
  row.scaling = transform.scaling;
  // Both are invariant under the row scalings, so the stored metrics hold for a rescaled transform.
  row.kappa2_V = config.metrics.kappa2_V;
  row.amp2d = config.metrics.amp2d;
  row.predicted_error = exact::kErrorModelConstant * prediction_unit_roundoff(model) * row.amp2d;
  row.stats = measure_error(transform, model, spec, progress);
  return row;
}

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = std::min(x.size(), y.size());
  if (n < 2) return std::numeric_limits<double>::quiet_NaN();
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) mx += x[i], my += y[i];
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0 || syy == 0) return std::numeric_limits<double>::quiet_NaN();
  return sxy / std::sqrt(sxx * syy);
}

LogCorrelation log_correlation(const std::vector<Measurement>& rows) {
  std::vector<double> error, amp, kappa;
  for (const auto& row : rows) {
    const double e = row.stats.rel_l2_error();
    if (!(e > 0) || !std::isfinite(e)) continue;
    error.push_back(std::log10(e));
    amp.push_back(std::log10(row.amp2d));
    kappa.push_back(std::log10(row.kappa2_V));
  }
  LogCorrelation c;
  c.count = static_cast<int>(error.size());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  c.with_amp2d = c.count >= 3 ? pearson(error, amp) : nan;
  c.with_kappa2_V = c.count >= 3 ? pearson(error, kappa) : nan;
  return c;
}

std::string format_table(const RunSettings& run, const std::vector<Measurement>& rows) {
  std::string out = "model: " + run.model_name + " (" + describe(run.model) + ")\n" + data_line(run) + "\n\n";
  std::vector<std::vector<std::string>> cells = {{"config", "scaling", "kappa2(V)", "amp2D", "rel L2 error", "max |err|",
                                                   "max |ref|", "non-finite", "flushed to 0", "0.7*u*amp2D"}};
  for (const auto& r : rows)
    cells.push_back({r.config, scaling_label(r.scaling), number(r.kappa2_V), number(r.amp2d), error_text(r.stats),
                     number(r.stats.max_abs_error), number(r.stats.max_abs_reference), std::to_string(r.stats.non_finite),
                     std::to_string(r.stats.flushed), r.predicted_error > 0 ? number(r.predicted_error) : "n/a"});
  out += render(cells);
  if (const LogCorrelation c = log_correlation(rows); c.count >= 3) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "\nPearson r of log10(rel L2 error) over %d rows: vs log10(amp2D) %.3f, vs log10(kappa2(V)) %.3f\n",
                  c.count, c.with_amp2d, c.with_kappa2_V);
    out += buf;
  }
  return out;
}

std::string format_csv(const RunSettings& run, const std::vector<Measurement>& rows) {
  const PrecisionModel& m = run.model;
  const ExperimentSpec& s = run.spec;
  std::ostringstream out;
  out << "config,m,r,points,scaling,kappa2_V,amp2D,model,input,filter,transformed_input,transformed_filter,"
         "accumulator,product,output,matrices,compute,input_compute,input_distribution,input_scale,filter_distribution,filter_scale,"
         "channels,filters,tiles,seed,rel_l2_error,max_abs_error,max_abs_reference,non_finite,flushed,predicted_error\n";
  out.precision(6);
  for (const auto& r : rows) {
    out << r.config << ',' << r.tile.m << ',' << r.tile.r << ',' << r.points << ',' << scaling_label(r.scaling) << ','
        << r.kappa2_V << ',' << r.amp2d << ',' << run.model_name << ',' << to_string(m.input) << ','
        << to_string(m.filter) << ',' << to_string(m.transformed_input) << ',' << to_string(m.transformed_filter) << ','
        << to_string(m.accumulator) << ',' << to_string(m.product) << ',' << to_string(m.output) << ','
        << to_string(m.matrices) << ',' << to_string(m.compute) << ',' << to_string(input_arithmetic(m)) << ','
        << to_string(s.input_distribution) << ',' << s.input_scale << ','
        << to_string(s.filter_distribution) << ',' << s.filter_scale << ',' << s.channels << ',' << s.filters << ','
        << r.stats.tiles << ',' << s.seed << ',' << r.stats.rel_l2_error() << ',' << r.stats.max_abs_error << ','
        << r.stats.max_abs_reference << ',' << r.stats.non_finite << ',' << r.stats.flushed << ',' << r.predicted_error
        << '\n';
  }
  return out.str();
}

std::string format_json(const RunSettings& run, const std::vector<Measurement>& rows) {
  using nlohmann::json;
  const PrecisionModel& m = run.model;
  const ExperimentSpec& s = run.spec;
  // JSON has no inf/NaN: an undefined number is written as null.
  auto num = [](double x) { return std::isfinite(x) ? json(x) : json(nullptr); };
  json results = json::array();
  for (const auto& r : rows)
    results.push_back({{"config", r.config},
                       {"tile", {{"m", r.tile.m}, {"r", r.tile.r}}},
                       {"points", r.points},
                       {"scaling", exact::scaling_name(r.scaling)},
                       {"kappa2_V", r.kappa2_V},
                       {"amp2D", r.amp2d},
                       {"tiles", r.stats.tiles},
                       {"outputs", r.stats.outputs},
                       {"rel_l2_error", num(r.stats.rel_l2_error())},
                       {"max_abs_error", num(r.stats.max_abs_error)},
                       {"max_abs_reference", num(r.stats.max_abs_reference)},
                       {"non_finite", r.stats.non_finite},
                       {"flushed", r.stats.flushed},
                       {"predicted_error", r.predicted_error > 0 ? json(r.predicted_error) : json(nullptr)}});
  const LogCorrelation c = log_correlation(rows);
  const json doc = {
      {"model",
       {{"name", run.model_name},
        {"input", to_string(m.input)},
        {"filter", to_string(m.filter)},
        {"transformed_input", to_string(m.transformed_input)},
        {"transformed_filter", to_string(m.transformed_filter)},
        {"accumulator", to_string(m.accumulator)},
        {"product", to_string(m.product)},
        {"output", to_string(m.output)},
        {"matrices", to_string(m.matrices)},
        {"compute", to_string(m.compute)},
        {"input_compute", to_string(input_arithmetic(m))}}},
      {"data",
       {{"input_distribution", to_string(s.input_distribution)},
        {"input_scale", s.input_scale},
        {"filter_distribution", to_string(s.filter_distribution)},
        {"filter_scale", s.filter_scale},
        {"channels", s.channels},
        {"filters", s.filters},
        {"seed", s.seed}}},
      {"results", results},
      {"correlation",
       {{"rows", c.count}, {"log_error_vs_log_amp2D", num(c.with_amp2d)}, {"log_error_vs_log_kappa2_V", num(c.with_kappa2_V)}}},
  };
  return doc.dump(2) + "\n";
}

}  // namespace nova::errlab
