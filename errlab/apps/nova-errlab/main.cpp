// nova-errlab: measures the real low-precision error of Winograd transforms. Each config is run as
// an emulated 2D convolution layer under a precision model (storage format per stage, transform
// matrices, transform arithmetic) on seeded random data and compared with FP64 direct convolution.
#include "nova/exact/config_json.hpp"
#include "nova/exact/heartbeat.hpp"
#include "nova/errlab/report.hpp"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace nova::errlab;
using nova::exact::InputError;

constexpr int kExitBadInput = 2;

struct Options {
  std::vector<std::string> configs;
  std::string model = "kernel-fp16";
  // Per-stage overrides of the preset; empty = keep the preset's choice.
  std::string input, filter, transformed_input, transformed_filter, accumulator, product, output, matrices, compute,
      input_compute;
  std::string scaling = "keep";
  std::string input_distribution = "gaussian", filter_distribution = "he";
  std::string format = "table";
  std::string csv_file;
  bool list_models = false;
  ExperimentSpec spec;
};

// Runs a parser, prefixing its error message with the option it came from.
template <class Parse>
auto parse_option(const char* option, Parse&& parse) {
  try {
    return parse();
  } catch (const InputError& e) {
    throw InputError(std::string(option) + ": " + e.what());
  }
}

PrecisionModel build_model(const Options& opt, std::string& name) {
  PrecisionModel model = parse_option("--model", [&] { return preset(opt.model); });
  const PrecisionModel original = model;
  auto override_with = [](const std::string& text, const char* option, StorageType& field) {
    if (!text.empty()) field = parse_option(option, [&] { return parse_storage_type(text); });
  };
  override_with(opt.input, "--input-type", model.input);
  override_with(opt.filter, "--filter-type", model.filter);
  override_with(opt.transformed_input, "--transformed-input-type", model.transformed_input);
  override_with(opt.transformed_filter, "--transformed-filter-type", model.transformed_filter);
  override_with(opt.accumulator, "--accumulator-type", model.accumulator);
  override_with(opt.product, "--product-type", model.product);
  override_with(opt.output, "--output-type", model.output);
  override_with(opt.matrices, "--matrix-type", model.matrices);
  StorageType compute{model.compute, Granularity::tensor};
  override_with(opt.compute, "--compute-type", compute);
  model.compute = compute.format;
  if (!opt.input_compute.empty()) {
    StorageType input_compute{model.compute, Granularity::tensor};
    override_with(opt.input_compute, "--input-compute-type", input_compute);
    model.input_compute = input_compute.format;
  }
  validate(model);
  name = opt.model + (model == original ? "" : "+custom");
  return model;
}

// Progress on stderr for runs that take more than a couple of seconds, at most every two seconds.
Progress progress_printer(const std::string& name) {
  const auto start = std::chrono::steady_clock::now();
  return [name, start, last = start](long long done, long long total) mutable {
    const auto now = std::chrono::steady_clock::now();
    if (now - start < std::chrono::seconds(2) || (now - last < std::chrono::seconds(2) && done < total)) return;
    last = now;
    const double seconds = std::chrono::duration<double>(now - start).count();
    std::fprintf(stderr, "nova-errlab: %s: %lld of %lld layer instances, %.0f s, about %.0f s left\n", name.c_str(), done,
                 total, seconds, seconds * static_cast<double>(total - done) / static_cast<double>(done));
  };
}

int run(const Options& opt) {
  RunSettings run;
  run.model = build_model(opt, run.model_name);
  run.spec = opt.spec;
  run.spec.input_distribution = parse_option("--input-dist", [&] { return parse_distribution(opt.input_distribution); });
  run.spec.filter_distribution = parse_option("--filter-dist", [&] { return parse_distribution(opt.filter_distribution); });
  validate(run.spec);
  const std::optional<nova::exact::Scaling> rescale =
      opt.scaling == "keep" ? std::nullopt : std::optional(nova::exact::parse_scaling(opt.scaling));

  // Read and verify every file before measuring anything: a typo fails fast.
  std::vector<nova::exact::Config> configs;
  for (const auto& file : opt.configs) {
    const nova::exact::Heartbeat heartbeat("nova-errlab", "verifying " + file);
    configs.push_back(nova::exact::read_config(file));
    if (const auto v = nova::exact::verify_config(configs.back()); !v.ok)
      throw InputError(file + ": failed verification: " + v.message);
  }
  std::vector<Measurement> rows;
  for (const auto& config : configs) rows.push_back(measure_config(config, rescale, run.model, run.spec, progress_printer(config.name)));

  if (opt.format == "json") std::cout << format_json(run, rows);
  else if (opt.format == "csv") std::cout << format_csv(run, rows);
  else std::cout << format_table(run, rows);

  if (!opt.csv_file.empty()) nova::exact::write_text_atomic(opt.csv_file, format_csv(run, rows));
  return 0;
}

void print_models() {
  for (const auto& p : presets()) std::cout << p.name << ": " << p.description << "\n    " << describe(preset(p.name)) << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "nova-errlab: measured low-precision error of Winograd transforms.\n"
      "Emulates a 2D Winograd convolution layer (C input channels, K output channels) under a precision\n"
      "model, rounding explicitly at every stage boundary, and compares it with FP64 direct convolution\n"
      "of the same seeded random data. Prints the relative L2 error, the maximum error, the count of\n"
      "non-finite outputs and the amp2D prediction 0.7*u*amp2D (docs/design.md §6).\n\n"
      "Examples:\n"
      "  nova-errlab configs/f6x3_standard.json configs/f6x3_nova.json\n"
      "  nova-errlab --model storage-fp16 --scaling balanced configs/*.json --format csv\n"
      "  nova-errlab --model paper-int8 --input-dist uniform --filter-dist uniform configs/f4x3_*.json\n"
      "  nova-errlab --list-models\n",
      "nova-errlab"};
  app.set_version_flag("--version", std::string("nova-errlab ") + NOVA_VERSION);

  Options opt;
  const std::string formats = "fp64, fp32, fp16, bf16, int8 (= int8-tensor), int8-channel";
  app.add_option("configs", opt.configs, "Transform JSON files (configs/*.json)");
  app.add_flag("--list-models", opt.list_models, "Print the precision-model presets and exit");
  app.add_option("--model", opt.model, "Precision-model preset (default kernel-fp16; see --list-models)");
  app.add_option("--input-type", opt.input, "Storage of the input d: " + formats);
  app.add_option("--filter-type", opt.filter, "Storage of the filters g");
  app.add_option("--transformed-input-type", opt.transformed_input, "Storage of V = B^T d B");
  app.add_option("--transformed-filter-type", opt.transformed_filter, "Storage of U = G g G^T");
  app.add_option("--accumulator-type", opt.accumulator,
                 "Accumulator of M = sum_c U_c . V_c (int8: exact accumulation, M requantized to int8)");
  app.add_option("--product-type", opt.product,
                 "Storage of M between the sum and the output transform (default fp64: as accumulated)");
  app.add_option("--output-type", opt.output, "Storage of the output Y = A^T M A");
  app.add_option("--matrix-type", opt.matrices, "What the entries of A^T, G, B^T are rounded to (int8: per matrix or per row)");
  app.add_option("--compute-type", opt.compute, "Arithmetic of the transforms (fused multiply-adds): fp64, fp32, fp16, bf16");
  app.add_option("--input-compute-type", opt.input_compute,
                 "Arithmetic of the input transform B^T d B alone (default: --compute-type), e.g. fp16 for a kernel "
                 "that transforms the input in half-precision pairs");
  app.add_option("--scaling", opt.scaling,
                 "Row scaling: keep (as stored, default) or rebuild the same points with G, A, B, balanced or units")
      ->check(CLI::IsMember({"keep", "G", "A", "B", "balanced", "units"}));
  app.add_option("-C,--channels", opt.spec.channels, "Input channels C summed by the GEMM (default 64)");
  app.add_option("-K,--filters", opt.spec.filters, "Output channels K (default 64)");
  app.add_option("--tiles", opt.spec.tiles,
                 "Output tiles to measure, each m x m outputs of one output channel (default 65536; rounded up to "
                 "whole layer instances of up to 64 positions x K)");
  // CLI11 would wrap "-1" or 2^64 around into an unsigned option; these refuse instead.
  const auto at_most = [](std::uint64_t max) {
    return CLI::Validator([max](const std::string& text) { return nova::exact::unsigned_error(text, max); }, "");
  };
  app.add_option("--seed", opt.spec.seed,
                 "Random seed, 0 to 2^64-1 (default 1); results are identical for a seed at any --threads")
      ->check(at_most(UINT64_MAX));
  app.add_option("--threads", opt.spec.threads,
                 "Worker threads, 0 (the default: one per hardware thread) to " + std::to_string(kMaxThreads) +
                     "; their buffers may total at most 4 GiB")
      ->check(at_most(kMaxThreads));
  app.add_option("--input-dist", opt.input_distribution, "Input distribution: gaussian (default), uniform, relu");
  app.add_option("--input-scale", opt.spec.input_scale, "Input scale: standard deviation, half-width or ReLU scale (default 1)");
  app.add_option("--filter-dist", opt.filter_distribution,
                 "Filter distribution: he (default: Gaussian, standard deviation sqrt(2 / (C r^2)) as trained "
                 "weights have), gaussian, uniform");
  app.add_option("--filter-scale", opt.spec.filter_scale, "Filter scale, a factor on the distribution (default 1)");
  app.add_option("--format", opt.format, "Standard output: table (default), json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  app.add_option("--csv", opt.csv_file, "Also write the CSV rows to this file");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitBadInput;
  }

  try {
    if (opt.list_models) {
      print_models();
      return 0;
    }
    if (opt.configs.empty()) throw InputError("no config files given (for example configs/f6x3_nova.json); see --help");
    return run(opt);
  } catch (const InputError& e) {
    std::cerr << "nova-errlab: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "nova-errlab: internal error: " << e.what() << "\n";
    return kExitBadInput;
  }
}
