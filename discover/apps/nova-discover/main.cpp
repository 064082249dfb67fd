// nova-discover: discover Winograd point sets (symmetric search, Evolution Strategy, snapping to
// rationals) or evaluate given ones, prove the Cook-Toom identity exactly and write the verified
// transform as JSON.
#include "nova/discover/baselines.hpp"
#include "nova/exact/config_json.hpp"
#include "nova/exact/heartbeat.hpp"
#include "nova/exact/report.hpp"
#include "nova/discover/search.hpp"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace {

using namespace nova::discover;
using namespace nova::exact;

constexpr int kExitVerificationFailed = 1;
constexpr int kExitBadInput = 2;
// Predicted fp16 error above which a transform is no use for fp16 kernels (the runtime's "auto"
// takes none above it either).
constexpr double kFp16ErrorBudget = 1e-2;

std::string command_line(int argc, char** argv) {
  std::string cmd = "nova-discover";
  for (int i = 1; i < argc; ++i) cmd += " " + std::string(argv[i]);
  return cmd;
}

struct Options {
  std::string tile;
  std::string scaling;  // empty: G for evaluation and --objective kappa, balanced for fp16/bf16
  std::string name;
  std::vector<std::string> aliases;
  std::string out;
  std::string format = "table";
  bool dry_run = false;
  bool force = false;
  bool verify_2d = false;
  bool quiet = false;
  // Evaluation mode.
  std::string points;
  // Search mode (no --points).
  std::string objective = "kappa";
  std::string dtype = "none";
  bool symmetric_only = false;
  bool es_only = false;
  bool tensor_core = false;
  std::uint64_t seed = 1;
  int dmax = LatticeBounds{}.max_denominator;
  int numerator_bound = LatticeBounds{}.numerator_bound;
  int population = EvolutionSettings{}.population;
  int generations = EvolutionSettings{}.generations;
  int restarts = EvolutionSettings{}.restarts;
  std::size_t neighbourhood_budget = kNeighbourhoodBudget;
  unsigned threads = 0;  // 0: all hardware threads
};

nlohmann::json tool_provenance(const std::string& objective, const std::string& command) {
  return {{"tool", std::string("nova-discover ") + NOVA_VERSION}, {"objective", objective}, {"seed", nullptr}, {"command", command}};
}

// Why `existing` may not be replaced by `config` without --force, or "" when it may: a different
// transform (tile, points, scaling) under that path is someone's result.
std::string replacement_conflict(const std::string& path, const Config& config) {
  Config old;
  try {
    old = read_config(path);
  } catch (const InputError& e) {
    return path + " exists and is not a config this tool reads (" + e.what() + ")";
  }
  const Transform &a = old.transform, &b = config.transform;
  if (same_transform(a, b)) return {};
  return path + " holds " + old.name + " with points " + format_points(a.points()) + ", scaling " +
         std::string(scaling_name(a.scaling)) + "; this run made " + config.name + " with points " +
         format_points(b.points()) + ", scaling " + std::string(scaling_name(b.scaling));
}

// Prints the table (or the JSON document) and writes the file unless --dry-run. The --alias names
// join the config here, so both modes record them.
void emit(Config config, const Options& opt, const std::string& table) {
  config.aliases = opt.aliases;
  check_aliases(config);
  if (opt.format == "json") std::cout << serialise(config);
  else if (!opt.quiet) std::cout << table;
  if (!opt.dry_run) {
    const std::string path = opt.out.empty() ? "configs/" + config.name + ".json" : opt.out;
    std::error_code ec;  // anything but a regular file is refused by write_config itself
    if (!opt.force && std::filesystem::is_regular_file(std::filesystem::symlink_status(path, ec)))
      if (const std::string conflict = replacement_conflict(path, config); !conflict.empty())
        throw InputError(conflict + ": not replaced (--force replaces it, --out writes elsewhere)");
    write_config(path, config);
    if (!opt.quiet) std::cerr << "wrote " << path << "\n";
  }
}

int run_evaluate(const Options& opt, const std::string& command) {
  const TileSize tile = parse_tile(opt.tile);
  const Scaling scaling = opt.scaling.empty() ? Scaling::DenominatorsInG : parse_scaling(opt.scaling);
  std::vector<Rational> finite;
  std::string label = opt.name;
  if (opt.points == "standard") {
    finite = standard_points(tile);
    if (label.empty()) label = "standard";
  } else {
    finite = finite_points_for_tile(tile, parse_point_list(opt.points));
    if (label.empty()) label = "custom";
  }
  const Config config = [&] {
    const Heartbeat heartbeat("nova-discover", "building, proving and measuring F(" + opt.tile + ") exactly");
    return make_config(transform_name(tile, label), build_transform(tile, finite, scaling), opt.verify_2d,
                       tool_provenance("evaluate", command));
  }();
  emit(config, opt, format_metrics_table({config}));
  return 0;
}

// Status lines on stderr once a run has taken a second: every finished stage, and generation
// updates at most twice a second.
class ProgressPrinter {
 public:
  void operator()(const std::string& line, bool stage_finished) {
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1)) return;
    if (!stage_finished && now - last_ < std::chrono::milliseconds(500)) return;
    last_ = now;
    char elapsed[32];
    std::snprintf(elapsed, sizeof elapsed, "[%.1f s] ", std::chrono::duration<double>(now - start_).count());
    std::cerr << elapsed << line << "\n";
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_{};
};

std::string search_table(const SearchOptions& search, const SearchResult& result, const Config& config,
                         const std::string& command) {
  const TileSize tile = search.tile;
  std::string out = "search F(" + std::to_string(tile.m) + "," + std::to_string(tile.r) + "): objective " +
                    std::string(objective_name(search.objective)) + ", dtype " +
                    std::string(dtype_name(search.lattice.dtype)) + ", seed " + std::to_string(search.seed) + ", d_max " +
                    std::to_string(search.lattice.max_denominator) + ", |a| <= " +
                    std::to_string(search.lattice.numerator_bound) + "b, scaling " +
                    std::string(scaling_name(search.scaling)) + "\n";
  for (const auto& s : result.stages) {
    std::vector<Point> points;
    for (const auto& p : s.points) points.push_back(Point::finite(p));
    char score[32];
    std::snprintf(score, sizeof score, "%.6g", s.score);
    out += "  " + s.stage + ": " + (points.empty() ? std::string("no valid set") : format_points(points)) + ", score " +
           score + " (" + std::to_string(s.evaluations) + " evaluations)\n";
  }
  out += "  chosen: " + result.stage + "; exact " + (config.verified_2d ? "1D and 2D identities" : "1D identity") +
         " verified\n\n";

  std::vector<Config> columns{config}, baselines;
  std::string described = "baselines:\n";
  for (const auto& b : make_baselines(ObjectiveFunction(tile, search.objective, search.scaling), RationalLattice(search.lattice))) {
    baselines.push_back(make_config(transform_name(tile, b.label), build_transform(tile, b.points, search.scaling), false,
                                    tool_provenance("baseline", command)));
    columns.push_back(baselines.back());
    described += "  " + baselines.back().name + ": " + b.description + "\n";
  }
  return out + format_metrics_table(columns) + "\n" + described + "\n" + format_improvements(config, baselines);
}

int run_search_command(const Options& opt, const std::string& command) {
  SearchOptions search;
  search.tile = parse_tile(opt.tile);
  search.objective = parse_objective(opt.objective);
  search.scaling = opt.scaling.empty() ? default_scaling(search.objective) : parse_scaling(opt.scaling);
  search.lattice = {opt.dmax, opt.numerator_bound, parse_dtype(opt.dtype)};
  search.evolution.population = opt.population;
  search.evolution.generations = opt.generations;
  search.evolution.restarts = opt.restarts;
  search.neighbourhood_budget = opt.neighbourhood_budget;
  search.seed = opt.seed;
  search.symmetric_only = opt.symmetric_only;
  search.es_only = opt.es_only;
  search.tensor_core = opt.tensor_core;
  search.threads = opt.threads ? opt.threads : WorkerPool::hardware_threads();
  if (!opt.quiet) search.progress = ProgressPrinter{};
  validate_search_options(search);
  const std::string label =
      opt.name.empty() ? default_search_label(search.objective, search.lattice.dtype, search.tensor_core) : opt.name;
  const std::string name = transform_name(search.tile, label);

  const SearchResult result = run_search(search);
  const Config config = [&] {
    const Heartbeat heartbeat("nova-discover", "proving and measuring the result exactly");
    return make_config(name, build_transform(search.tile, result.points, search.scaling), opt.verify_2d,
                       search_provenance(search, result, command));
  }();
  const bool table_shown = opt.format == "table" && !opt.quiet;
  emit(config, opt, table_shown ? search_table(search, result, config, command) : std::string());
  if (search.objective == Objective::Kappa && config.metrics.predicted_error_fp16 > kFp16ErrorBudget && !opt.quiet)
    std::cerr << "note: " << config.name << " has a predicted fp16 error of " << config.metrics.predicted_error_fp16
              << " (above " << kFp16ErrorBudget << "): kappa does not predict fp16 accuracy; for fp16 kernels "
              << "search with --objective fp16\n";
  return 0;
}

// Exit 0 when every file verifies, 2 when any file is unreadable or malformed (bad input), else 1.
int run_verify(const std::vector<std::string>& files, bool quiet) {
  int failures = 0, bad_input = 0;
  for (const auto& file : files) {
    try {
      const Heartbeat heartbeat("nova-discover", "verifying " + file);
      const Config config = read_config(file);
      if (const Verification v = verify_config(config); !v.ok) {
        std::cerr << "FAIL " << file << ": " << v.message << "\n";
        ++failures;
      } else if (!quiet) {
        std::cout << "OK   " << file << " (" << config.name << ", " << (config.verified_2d ? "1D+2D" : "1D")
                  << " identity exact, matrices match points and scaling)\n";
      }
    } catch (const InputError& e) {
      std::cerr << "FAIL " << e.what() << "\n";
      ++bad_input;
    }
  }
  if (failures + bad_input && !quiet)
    std::cerr << failures + bad_input << " of " << files.size() << " config(s) failed verification\n";
  return bad_input ? kExitBadInput : failures ? kExitVerificationFailed : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "nova-discover: exact Cook-Toom Winograd transforms F(m,r).\n"
      "Without --points it searches for a point set: symmetric search, Evolution Strategy in R^(n-1),\n"
      "snap-to-rational and a neighbourhood search, minimising kappa2(V) (the paper's objective) or the\n"
      "fp16/bf16 error amplification amp2D; it prints the result beside standard, Chebyshev, reciprocal and\n"
      "classic baselines. With --points it evaluates the given set. Either way it builds A^T, G, B^T in exact\n"
      "rational arithmetic (GMP), proves the correlation identity exactly and writes the verified transform\n"
      "as JSON (schema nova.transform/1).\n\n"
      "Examples:\n"
      "  nova-discover --tile 6,3                          # kappa-optimal points -> configs/f6x3_kappa.json\n"
      "  nova-discover --tile 6,3 --objective fp16         # fp16-accurate points -> configs/f6x3_fp16.json\n"
      "  nova-discover --tile 4,3 --objective fp16 --dtype fp16   # fp16-exact (dyadic) points\n"
      "  nova-discover --tile 4,3 --objective fp16 --dtype fp16 --tensor-core   # ... and B^T (x) B^T one fp16 table\n"
      "  nova-discover --tile 6,3 --points 0,3/5,-3/5,1,-1,7/6,-7/6 --name nova\n"
      "  nova-discover verify configs/*.json\n",
      "nova-discover"};
  app.set_version_flag("--version", std::string("nova-discover ") + NOVA_VERSION);
  app.require_subcommand(0, 1);

  // CLI11 would wrap "-1" or 2^64 around into an unsigned option; these refuse instead.
  const auto at_most = [](std::uint64_t max) {
    return CLI::Validator([max](const std::string& text) { return unsigned_error(text, max); }, "");
  };

  Options opt;
  app.add_option("--tile", opt.tile,
                 "Tile F(m,r) as M,R or MxR, e.g. 6,3 (evaluation: 1 <= m <= 32, 1 <= r <= 16; search: m <= 16, r >= 2)");
  auto* points = app.add_option(
      "--points", opt.points,
      "Evaluate these interpolation points instead of searching, comma separated: integers, p/q, finite "
      "decimals (0.6 = 3/5); n-1 = m+r-2 finite points, 'inf' is implied and may be given once. "
      "'standard' = {0, 1, -1, 2, -2, ...}");
  app.add_option("--scaling", opt.scaling,
                 "Where the Lagrange denominators go: G (the paper's convention; default for evaluation and "
                 "--objective kappa), A, B, balanced (power-of-two row scaling), or units (balanced, then a power "
                 "of two of each column of A^T moved into G so that as many rows of A^T as can hold a +-1: fewer "
                 "multiplications in the output transform; default for fp16/bf16)")
      ->check(CLI::IsMember({"G", "A", "B", "balanced", "units"}));
  app.add_option("--name", opt.name,
                 "Point-set label; the transform is named f<m>x<r>_<label> (default: 'standard' or 'custom' when "
                 "evaluating, the objective plus _dyadic/_bf16/_int8 for a --dtype when searching)");
  app.add_option("--alias", opt.aliases,
                 "Another name of the same transform, f<m>x<r>_<label> (repeatable): codegen then makes one set of "
                 "kernels under every name, and refuses a second config that holds the same transform")
      ->allow_extra_args(false);  // one name per --alias: "--alias a b" must not record b
  app.add_option("--out", opt.out,
                 "JSON file to write (default: configs/<name>.json); written atomically, never through a link or "
                 "over a special file; an existing config of another transform is kept unless --force");
  app.add_flag("--force", opt.force, "Replace an existing config even when it holds another transform");
  app.add_flag("--dry-run", opt.dry_run, "Print only; write no file");
  app.add_option("--format", opt.format, "Standard output: 'table' (default) or the JSON document")
      ->check(CLI::IsMember({"table", "json"}));
  app.add_flag("--verify-2d", opt.verify_2d,
               "Also prove the 2D identity (Kronecker matrices): m^2 n^4 r^2 exact products, refused above 2e7 "
               "(F(10,3) is 1.9e7, a few seconds)");
  app.add_flag("-q,--quiet", opt.quiet, "Print nothing but errors (no table, no progress)");

  const std::vector<CLI::Option*> search_options = {
      app.add_option("--objective", opt.objective,
                     "Search: kappa (the paper's objective: minimise kappa2(V); ES fitness eq. 5 with lambda2 = 1), "
                     "fp16 or bf16 (minimise amp2D, the error "
                     "amplification of docs/design.md §6, keeping transformed values of data of magnitude <= 1 "
                     "inside the type's normal range)")
          ->check(CLI::IsMember({"kappa", "fp16", "bf16"})),
      app.add_option("--dtype", opt.dtype,
                     "Search: points exactly representable in none, fp16, bf16 or int8 (paper Table 15; biased "
                     "mutations and a 0.1-weighted penalty in the ES)")
          ->check(CLI::IsMember({"none", "fp16", "bf16", "int8"})),
      app.add_flag("--symmetric-only", opt.symmetric_only, "Search: run only the symmetric search {0} U {+-p}"),
      app.add_flag("--es-only", opt.es_only, "Search: run only the ES in R^(n-1)"),
      app.add_flag("--tensor-core", opt.tensor_core,
                   "Search, with --objective fp16 or bf16: only point sets whose B^T (x) B^T is one table of that "
                   "type, exactly (every product of two B^T entries a value of the type), which the fused wgmma "
                   "kernel's input transform on the tensor cores multiplies with one product a k-step"),
      app.add_option("--seed", opt.seed, "Search: random seed, 0 to 2^64-1 (default 1); results do not depend on --threads")
          ->check(at_most(UINT64_MAX)),
      app.add_option("--dmax", opt.dmax, "Search: largest denominator of a point (default 10, at most 1000)"),
      app.add_option("--numerator-bound", opt.numerator_bound,
                     "Search: points a/b satisfy |a| <= bound * b (default 5, at most 1000)"),
      app.add_option("--population", opt.population, "Search: ES population per generation (default 50)"),
      app.add_option("--generations", opt.generations, "Search: ES generations per restart (default 100)"),
      app.add_option("--restarts", opt.restarts, "Search: independent ES restarts (default 3)"),
      app.add_option("--neighbourhood-budget", opt.neighbourhood_budget,
                     "Search: rational combinations scored around each stage's ES optimum (default 30000)")
          ->check(at_most(kMaxNeighbourhoodBudget)),
      app.add_option("--threads", opt.threads,
                     "Search: worker threads, 0 (the default: all hardware threads) to " +
                         std::to_string(kMaxSearchThreads))
          ->check(at_most(kMaxSearchThreads)),
  };
  for (auto* o : search_options) points->excludes(o);

  std::vector<std::string> files;
  bool verify_quiet = false;
  auto* verify = app.add_subcommand("verify",
                                    "Re-verify config files: rebuild each from its points and scaling, compare every "
                                    "matrix entry exactly, re-prove the identity and re-check the metrics");
  verify->add_option("files", files, "Config JSON files")->required();
  verify->add_flag("-q,--quiet", verify_quiet, "Print only failures");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitBadInput;
  }

  try {
    if (verify->parsed()) return run_verify(files, verify_quiet);
    if (opt.tile.empty()) throw InputError("--tile is required (for example --tile 6,3); see --help");
    const std::string command = command_line(argc, argv);
    return opt.points.empty() ? run_search_command(opt, command) : run_evaluate(opt, command);
  } catch (const InputError& e) {
    std::cerr << "nova-discover: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "nova-discover: internal error: " << e.what() << "\n";
    return kExitBadInput;
  }
}
