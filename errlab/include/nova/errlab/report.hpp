// What nova-errlab prints: one row per measured transform (table, CSV or JSON), with the amp2D
// prediction beside the measurement and, across the rows, how well log error follows log amp2D
// and log kappa2(V).
#pragma once

#include "nova/exact/config_json.hpp"
#include "nova/errlab/experiment.hpp"
#include "nova/errlab/precision_model.hpp"

#include <optional>
#include <string>
#include <vector>

namespace nova::errlab {

struct Measurement {
  std::string config;  // transform name, e.g. f6x3_nova
  exact::TileSize tile;
  std::string points;  // finite points and inf, space separated
  exact::Scaling scaling = exact::Scaling::DenominatorsInG;
  double kappa2_V = 0;
  double amp2d = 0;
  double predicted_error = 0;  // 0.7 u amp2D; 0 when the model has no u (int8)
  ErrorStats stats;
};

// Measures a stored config, optionally rebuilt with another row scaling (same points).
Measurement measure_config(const exact::Config& config, std::optional<exact::Scaling> rescale,
                           const PrecisionModel& model, const ExperimentSpec& spec, const Progress& progress = {});

// The settings shared by every row of one run.
struct RunSettings {
  std::string model_name;  // preset name, with "+custom" when options changed it
  PrecisionModel model;
  ExperimentSpec spec;
};

// Pearson correlation of log10(rel L2 error) with log10(amp2D) and with log10(kappa2(V)) over the
// rows whose error is finite and positive; count < 3 means "not enough rows" (r values are NaN).
struct LogCorrelation {
  int count = 0;
  double with_amp2d = 0;
  double with_kappa2_V = 0;
};
LogCorrelation log_correlation(const std::vector<Measurement>& rows);
double pearson(const std::vector<double>& x, const std::vector<double>& y);  // NaN if undefined

std::string format_table(const RunSettings& run, const std::vector<Measurement>& rows);
std::string format_csv(const RunSettings& run, const std::vector<Measurement>& rows);  // header + rows
std::string format_json(const RunSettings& run, const std::vector<Measurement>& rows);

}  // namespace nova::errlab
