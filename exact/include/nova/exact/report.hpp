// Human-readable tables of transforms and their metrics, shared by every nova-discover mode.
#pragma once

#include "nova/exact/config_json.hpp"

#include <string>
#include <vector>

namespace nova::exact {

// "{0, 3/5, -3/5, 1, -1, 7/6, -7/6, inf}"
std::string format_points(const std::vector<Point>& points);

// One column per config, one row per metric; the first column is named by config.name.
std::string format_metrics_table(const std::vector<Config>& configs);

// One line per baseline: how many times lower the result's kappa2(V) and amp2D are than the
// baseline's (a factor below 1 means the baseline is better on that metric).
std::string format_improvements(const Config& result, const std::vector<Config>& baselines);

}  // namespace nova::exact
