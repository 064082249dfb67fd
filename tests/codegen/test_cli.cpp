// Runs the real nova-codegen binary: it writes what is committed, --list writes nothing, and bad
// input fails with a message and a non-zero exit.
#include "nova/exact/config_json.hpp"
#include "support/command.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = NOVA_SOURCE_DIR;

using Run = nova::test::CommandResult;

Run run_in(const fs::path& dir, const std::string& args) { return nova::test::run_command(dir, NOVA_CODEGEN_EXE, args); }

fs::path fresh_dir(const std::string& tag) { return nova::test::fresh_dir("codegen_" + tag); }

std::string slurp(const fs::path& p) { return nova::test::read_file(p); }

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

}  // namespace

TEST_CASE("nova-codegen writes exactly the committed generated/") {
  const fs::path out = fresh_dir("out");
  const Run r = run_in(kRoot, "configs/*.json --out '" + out.string() + "'");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("verified") && Catch::Contains("files written"));
  std::size_t count = 0;
  for (const auto& e : fs::directory_iterator(kRoot / "generated")) {
    INFO(e.path().filename().string());
    CHECK(slurp(out / e.path().filename()) == slurp(e.path()));
    ++count;
  }
  CHECK(count == static_cast<std::size_t>(std::distance(fs::directory_iterator(out), fs::directory_iterator())));
  fs::remove_all(out);
}

TEST_CASE("listing prints the files and writes nothing, stats print the table") {
  const fs::path out = fresh_dir("list") / "never";
  const Run list = run_in(kRoot, "--list configs/f6x3_nova.json configs/f2x3_standard.json --out '" + out.string() + "'");
  CHECK(list.exit_code == 0);
  CHECK(list.output == out.generic_string() + "/f2x3_standard_transforms.hpp\n" + out.generic_string() +
                           "/f2x3_standard_kernels.hip\n" + out.generic_string() + "/f6x3_nova_transforms.hpp\n" +
                           out.generic_string() + "/f6x3_nova_kernels.hip\n" + out.generic_string() +
                           "/all_transforms.hpp\n" + out.generic_string() + "/registry.cpp\n" + out.generic_string() + "/CMakeLists.txt\n");
  CHECK_FALSE(fs::exists(out));

  const Run stats = run_in(kRoot, "--stats configs/f6x3_nova.json");
  CHECK(stats.exit_code == 0);
  CHECK_THAT(stats.output, Catch::Contains("| f6x3_nova | input  B^T d B | 24 + 20 | 56 + 64 |"));
}

TEST_CASE("bad input: clear message, non-zero exit, nothing written") {
  const fs::path dir = fresh_dir("bad");
  const std::string good = slurp(kRoot / "configs/f6x3_nova.json");

  const Run missing = run_in(dir, "nope.json --out out");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Catch::Contains("nope.json: cannot open file"));

  write(dir / "broken.json", "{\"schema\": ");
  const Run broken = run_in(dir, "broken.json --out out");
  CHECK(broken.exit_code == 2);
  CHECK_THAT(broken.output, Catch::Contains("broken.json: malformed JSON"));

  // A well-formed file whose matrix was edited by hand fails exact verification.
  std::string tampered = good;
  tampered.replace(tampered.find("\"-49/100\""), 9, "\"-49/101\"");
  write(dir / "f6x3_nova.json", tampered);
  const Run unverified = run_in(dir, "f6x3_nova.json --out out");
  CHECK(unverified.exit_code == 1);
  CHECK_THAT(unverified.output, Catch::Contains("exact verification failed") && Catch::Contains("BT[0][0]"));

  write(dir / "copy.json", good);
  write(dir / "f6x3_nova.json", good);
  const Run duplicate = run_in(dir, "f6x3_nova.json copy.json --out out");
  CHECK(duplicate.exit_code == 2);
  CHECK_THAT(duplicate.output, Catch::Contains("both define 'f6x3_nova'"));

  const Run no_out = run_in(dir, "f6x3_nova.json");
  CHECK(no_out.exit_code == 2);
  CHECK_THAT(no_out.output, Catch::Contains("--out DIR is required"));

  const Run no_config = run_in(dir, "--out out");
  CHECK(no_config.exit_code == 2);

  write(dir / "file", "");
  const Run out_is_file = run_in(dir, "f6x3_nova.json --out file");
  CHECK(out_is_file.exit_code == 2);
  CHECK_THAT(out_is_file.output, Catch::Contains("cannot"));

  CHECK_FALSE(fs::exists(dir / "out"));
  fs::remove_all(dir);
}

TEST_CASE("a config's file name never becomes code in the generated files") {
  const fs::path dir = fresh_dir("injection");
  const std::string hostile = "x\nint injected = 42;\n\\.json";
  fs::copy_file(kRoot / "configs" / "f4x3_nova.json", dir / hostile);
  const Run r = run_in(dir, "\"$(printf 'x\\nint injected = 42;\\n\\\\.json')\" --out out");
  REQUIRE(r.exit_code == 0);
  for (const auto& e : fs::directory_iterator(dir / "out")) {
    INFO(e.path().filename().string());
    const std::string text = slurp(e.path());
    CHECK(text.find("\nint injected") == std::string::npos);
    CHECK(text.find("\\\n") == std::string::npos);  // no line splice either
    if (e.path().extension() != ".hpp" || e.path().filename() == "all_transforms.hpp" ||
        e.path().filename().string().find("_transforms.hpp") != std::string::npos)
      CHECK_THAT(text, Catch::Contains("x\\x0aint injected = 42;\\x0a\\x5c.json"));
  }
  fs::remove_all(dir);
}

TEST_CASE("one name per transform: a second config of the same transform is refused unless aliased") {
  const fs::path dir = fresh_dir("aliases");
  fs::copy_file(kRoot / "configs" / "f4x3_nova.json", dir / "f4x3_nova.json");
  fs::copy_file(kRoot / "configs" / "f4x3_standard.json", dir / "f4x3_standard.json");
  // The same points and scaling under another name.
  std::string twin = slurp(dir / "f4x3_nova.json");
  twin.replace(twin.find("\"f4x3_nova\""), 11, "\"f4x3_twin\"");
  write(dir / "twin.json", twin);
  Run r = run_in(dir, "f4x3_nova.json twin.json f4x3_standard.json --out out");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("f4x3_nova.json and twin.json hold the same transform") &&
                           Catch::Contains("\"aliases\""));
  CHECK_FALSE(fs::exists(dir / "out"));
  // The same points in another order are the same transform (only the rows are permuted).
  using namespace nova::exact;
  const TileSize tile{4, 3};
  write_config(dir / "twin.json",
                     make_config("f4x3_twin",
                                 build_transform(tile, finite_points_for_tile(tile, parse_point_list("-7/6,7/6,-5/6,5/6,0")),
                                                 Scaling::DenominatorsInG),
                                 false, {{"tool", "test"}, {"command", "test"}}));
  r = run_in(dir, "f4x3_nova.json twin.json --out out");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("hold the same transform"));
  // Declared as an alias instead: one set of kernels, both names in the registry.
  std::string aliased = slurp(dir / "f4x3_nova.json");
  aliased.insert(aliased.find("\"tile\""), "\"aliases\": [\"f4x3_twin\"],\n  ");
  write(dir / "f4x3_nova.json", aliased);
  r = run_in(dir, "f4x3_nova.json f4x3_standard.json --out out");
  CHECK(r.exit_code == 0);
  CHECK_FALSE(fs::exists(dir / "out" / "f4x3_twin_kernels.hip"));
  CHECK_THAT(slurp(dir / "out" / "registry.cpp"), Catch::Contains("{\"f4x3_twin\", \"f4x3_nova\"}"));
  // An alias that another file uses as its name is refused, naming both files.
  write(dir / "f4x3_twin.json", twin);
  r = run_in(dir, "f4x3_nova.json f4x3_twin.json --out out2");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("f4x3_nova.json and f4x3_twin.json both define 'f4x3_twin'"));
  fs::remove_all(dir);
}
