// The committed generated/ is exactly what the library generates from configs/, generation is
// deterministic and independent of argument order, and fast.
#include "nova/codegen/codegen.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

using namespace nova::codegen;
namespace fs = std::filesystem;

namespace {

const fs::path kRoot = NOVA_SOURCE_DIR;

// Relative paths, as the committed files were generated (their banners name configs/<file>).
std::vector<fs::path> config_paths() {
  std::vector<fs::path> paths;
  for (const auto& e : fs::directory_iterator(kRoot / "configs"))
    if (e.path().extension() == ".json") paths.push_back(fs::path("configs") / e.path().filename());
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("committed generated/ equals a fresh generation, file for file") {
  fs::current_path(kRoot);
  const std::vector<GeneratedFile> files = generate(load_sources(config_paths()));
  std::set<std::string> expected, committed;
  for (const GeneratedFile& f : files) {
    expected.insert(f.name);
    INFO(f.name << " differs: regenerate with nova-codegen configs/*.json --out generated");
    CHECK(slurp(kRoot / "generated" / f.name) == f.text);
  }
  for (const auto& e : fs::directory_iterator(kRoot / "generated")) committed.insert(e.path().filename().string());
  CHECK(committed == expected);
}

TEST_CASE("generation is deterministic and ignores argument order") {
  fs::current_path(kRoot);
  std::vector<fs::path> paths = config_paths();
  const std::vector<GeneratedFile> first = generate(load_sources(paths));
  std::reverse(paths.begin(), paths.end());
  const std::vector<GeneratedFile> second = generate(load_sources(paths));
  REQUIRE(first.size() == second.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    CHECK(first[i].name == second[i].name);
    CHECK(first[i].text == second[i].text);
  }
}

TEST_CASE("output names follow the one naming function") {
  fs::current_path(kRoot);
  const std::vector<Source> sources = load_sources({"configs/f6x3_nova.json"});
  CHECK(output_names(sources) ==
        std::vector<std::string>{"f6x3_nova_transforms.hpp", "f6x3_nova_kernels.hip", "all_transforms.hpp", "registry.cpp",
                                 "CMakeLists.txt"});
  CHECK_THROWS_AS(generate({}), nova::exact::InputError);
}
