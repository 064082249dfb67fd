// nova-codegen: verified transform JSON -> fully unrolled transforms, GPU kernels and registries.
#include "nova/codegen/codegen.hpp"

#include <CLI/CLI.hpp>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace {

using namespace nova::codegen;

constexpr int kExitVerificationFailed = 1;
constexpr int kExitBadInput = 2;

struct Options {
  std::vector<std::string> configs;
  std::string out;
  bool list = false;
  bool stats = false;
  bool quiet = false;
};

int run(const Options& opt) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::filesystem::path> paths(opt.configs.begin(), opt.configs.end());
  const std::vector<Source> sources = load_sources(paths);

  if (opt.list) {
    const std::filesystem::path dir = opt.out;
    for (const std::string& name : output_names(sources)) std::cout << (dir / name).generic_string() << "\n";
    return 0;
  }
  if (opt.stats) std::cout << format_stats(sources);
  if (opt.out.empty()) return 0;

  const std::vector<GeneratedFile> files = generate(sources);
  write_files(opt.out, files);
  const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!opt.quiet)
    std::cerr << "nova-codegen: " << sources.size() << " config(s) verified, " << files.size() << " files written to "
              << opt.out << " in " << static_cast<long>(ms + 0.5) << " ms\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "nova-codegen: verified Winograd transform JSON -> fully unrolled C++ transforms and HIP kernels.\n"
      "Re-verifies every config exactly (as nova-discover verify does), then writes per config\n"
      "<name>_transforms.hpp (host+device transforms) and <name>_kernels.hip (filter, input and output\n"
      "transform kernels and launchers), plus registry.cpp and CMakeLists.txt for all of them.\n"
      "Output is deterministic, and every file is written atomically.\n\n"
      "Examples:\n"
      "  nova-codegen configs/*.json --out generated\n"
      "  nova-codegen --list configs/*.json --out generated\n"
      "  nova-codegen --stats configs/f6x3_nova.json\n",
      "nova-codegen"};
  app.set_version_flag("--version", std::string("nova-codegen ") + NOVA_VERSION);
  Options opt;
  app.add_option("configs", opt.configs, "Verified transform JSON files (schema nova.transform/1)")->required();
  app.add_option("-o,--out", opt.out, "Folder to write the generated files into (created if missing)");
  app.add_flag("--list", opt.list, "Print the paths of the files it would write, one per line; write nothing");
  app.add_flag("--stats", opt.stats,
               "Print the operation counts (adds, multiplies) of every transform beside the dense matrix products, "
               "as a Markdown table; writes files only with --out");
  app.add_flag("-q,--quiet", opt.quiet, "Print nothing but errors");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitBadInput;
  }
  if (opt.out.empty() && !opt.list && !opt.stats) {
    std::cerr << "nova-codegen: error: --out DIR is required (or --list, --stats); see --help\n";
    return kExitBadInput;
  }
  try {
    return run(opt);
  } catch (const VerificationError& e) {
    std::cerr << "nova-codegen: error: " << e.what() << "\n";
    return kExitVerificationFailed;
  } catch (const nova::exact::InputError& e) {
    std::cerr << "nova-codegen: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "nova-codegen: internal error: " << e.what() << "\n";
    return kExitBadInput;
  }
}
