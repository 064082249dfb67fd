// Runs the real nova-discover binary: good runs write verified JSON, bad input fails cleanly
// (message, non-zero exit, no file left behind, no existing file touched).
#include "nova/exact/config_json.hpp"

#include "support/command.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace {

using nova::test::fresh_dir;
using Run = nova::test::CommandResult;

Run run_in(const fs::path& dir, const std::string& args) { return nova::test::run_command(dir, NOVA_DISCOVER_EXE, args); }

std::string slurp(const fs::path& p) { return nova::test::read_file(p); }

const fs::path kConfigs = fs::path(NOVA_SOURCE_DIR) / "configs";

}  // namespace

TEST_CASE("evaluation prints the table and writes verified JSON") {
  const fs::path dir = fresh_dir("eval");
  const Run r = run_in(dir, "--tile 6x3 --points 0,0.6,-3/5,1,-1,7/6,-7/6,inf --name nova");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("kappa2(V)") && Catch::Contains("76.6") && Catch::Contains("amp2D"));
  const fs::path written = dir / "configs" / "f6x3_nova.json";
  REQUIRE(fs::exists(written));
  CHECK(slurp(written).find("\"points\": [\"0\",\"3/5\",\"-3/5\"") != std::string::npos);
  const auto c = nova::exact::read_config(written);
  CHECK(nova::exact::verify_config(c).ok);
  // Deterministic: up to the recorded command line, the bytes are those of the shipped config.
  const auto upto_provenance = [](const std::string& text) { return text.substr(0, text.find("\"provenance\"")); };
  CHECK(upto_provenance(slurp(written)) == upto_provenance(slurp(kConfigs / "f6x3_nova.json")));
  fs::remove_all(dir);
}

TEST_CASE("options format json, out, dry-run, scaling and verify-2d") {
  const fs::path dir = fresh_dir("opts");
  Run r = run_in(dir, "--tile 4,3 --points standard --format json --dry-run --scaling balanced --verify-2d");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("\"scaling\": \"balanced\"") && Catch::Contains("\"identity\":\"1d+2d\""));
  CHECK(fs::is_empty(dir));
  r = run_in(dir, "--tile 4,3 --points standard --quiet --out sub/x.json");
  CHECK(r.exit_code == 0);
  CHECK(r.output.empty());
  CHECK(fs::exists(dir / "sub" / "x.json"));
  fs::remove_all(dir);
}

TEST_CASE("bad input: clear message, non-zero exit, nothing written") {
  const struct {
    const char* args;
    const char* message;
  } cases[] = {
      {"--tile 6,3 --points 0,1,1,2,-2,3,-3", "duplicate point 1"},
      {"--tile 6,3 --points 0,1,-1", "needs 7 finite points"},
      {"--tile 6,3 --points 0,1/0,-1,2,-2,3,-3", "zero denominator"},
      {"--tile 6,3 --points abc,1,-1,2,-2,3,-3", "invalid number 'abc'"},
      {"--tile 2,3 --points 0,1,inf,inf", "given 2 times"},
      {"--tile 0,3 --points 0", "m must be at least 1"},
      {"--tile 6,0 --points 0", "r must be at least 1"},
      {"--tile 10000,3 --points standard", "m is limited to 32"},
      {"--tile 6,3 --points standard --name Bad-Name", "invalid point-set name"},
      {"--tile 6,3 --points standard --scaling C", "scaling"},
      {"--tile six --points standard", "invalid tile"},
      {"--points standard", "--tile is required"},
      {"--no-such-option", "no-such-option"},
      {"--tile 6,3 --points standard --alias f6x3_a f6x3_b", "f6x3_b"},  // one name per --alias
      {"--tile 6,3 --points standard --alias f4x3_a", "alias 'f4x3_a' does not follow f6x3_<pointset>"},
      // Known to take minutes: refused up front (F(12,3)'s 2D identity is 5e7 exact products).
      {"--tile 12,3 --points standard --verify-2d", "the 2D identity of F(12,3) needs 5.0e+07 exact products"},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    const fs::path dir = fresh_dir("bad");
    const Run r = run_in(dir, std::string(c.args) + " --out out.json");
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.output, Catch::Contains(c.message));
    CHECK_THAT(r.output, !Catch::Contains("terminate") && !Catch::Contains("Aborted"));
    CHECK(fs::is_empty(dir));
    fs::remove_all(dir);
  }
}

TEST_CASE("a failed run never overwrites an existing config") {
  const fs::path dir = fresh_dir("keep");
  fs::copy_file(kConfigs / "f6x3_nova.json", dir / "f6x3_nova.json");
  const std::string before = slurp(dir / "f6x3_nova.json");
  const Run r = run_in(dir, "--tile 6,3 --points 0,1,1,2,-2,3,-3 --out f6x3_nova.json");
  CHECK(r.exit_code != 0);
  CHECK(slurp(dir / "f6x3_nova.json") == before);
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}) == 1);
  fs::remove_all(dir);
}

TEST_CASE("an existing config of another transform is kept unless --force") {
  const fs::path dir = fresh_dir("force");
  fs::copy_file(kConfigs / "f6x3_nova.json", dir / "f6x3_nova.json");
  const std::string before = slurp(dir / "f6x3_nova.json");
  Run r = run_in(dir, "--tile 6,3 --points standard --quiet --out f6x3_nova.json");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("f6x3_nova.json holds f6x3_nova with points {0, 3/5, -3/5, 1, -1, 7/6, -7/6, inf}") &&
                           Catch::Contains("this run made f6x3_standard with points {0, 1, -1, 2, -2, 3, -3, inf}") &&
                           Catch::Contains("--force"));
  CHECK(slurp(dir / "f6x3_nova.json") == before);
  // The same transform again (new provenance) replaces it; --force replaces another.
  r = run_in(dir, "--tile 6,3 --points 0,3/5,-3/5,1,-1,7/6,-7/6 --name nova --quiet --out f6x3_nova.json");
  CHECK(r.exit_code == 0);
  r = run_in(dir, "--tile 6,3 --points standard --quiet --force --out f6x3_nova.json");
  CHECK(r.exit_code == 0);
  CHECK(nova::exact::read_config(dir / "f6x3_nova.json").name == "f6x3_standard");
  fs::remove_all(dir);
}

// (A name that starts with "--" would reach Catch as its own --out option: ctest would run every case.)
TEST_CASE("the file of --out is never written through a link or over a special file, even with --force") {
  const fs::path dir = fresh_dir("special");
  std::ofstream(dir / "victim.txt") << "precious";
  fs::create_symlink(dir / "victim.txt", dir / "link.json");
  REQUIRE(::mkfifo((dir / "fifo.json").c_str(), 0600) == 0);
  for (const char* target : {"link.json", "fifo.json"}) {
    INFO(target);
    const Run r = run_in(dir, std::string("--tile 4,3 --points standard --quiet --force --out ") + target);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(target) && Catch::Contains("not a regular file"));
  }
  CHECK(slurp(dir / "victim.txt") == "precious");
  CHECK(fs::is_symlink(dir / "link.json"));
  CHECK(fs::is_fifo(dir / "fifo.json"));
  fs::remove_all(dir);
}

TEST_CASE("verify passes the shipped configs and fails edited, malformed or missing files") {
  const fs::path dir = fresh_dir("verify");
  Run r = run_in(kConfigs, "verify *.json");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("OK   f6x3_nova.json"));

  std::string text = slurp(kConfigs / "f4x3_nova.json");
  const auto at = text.find("\"-5/6\"");  // first occurrence: a point; the next one is in A^T
  const auto in_matrix = text.find("\"-5/6\"", text.find("\"AT\""));
  REQUIRE(at != std::string::npos);
  REQUIRE(in_matrix != std::string::npos);
  text.replace(in_matrix, 6, "\"-4/6\"");
  std::ofstream(dir / "edited.json") << text;
  std::ofstream(dir / "broken.json") << "{\"schema\": \"nova.transform/1\", ";
  // A well-formed config that does not verify: exit 1. Unreadable or malformed files are bad input: exit 2.
  r = run_in(dir, "verify edited.json '" + (kConfigs / "f4x3_nova.json").string() + "'");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("FAIL edited.json: AT[1][2] is -2/3, expected -5/6"));
  r = run_in(dir, "verify edited.json broken.json missing.json '" + (kConfigs / "f4x3_nova.json").string() + "'");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("FAIL broken.json: malformed JSON"));
  CHECK_THAT(r.output, Catch::Contains("FAIL missing.json: cannot open file"));
  CHECK_THAT(r.output, Catch::Contains("3 of 4 config(s) failed"));
  fs::remove_all(dir);
}

TEST_CASE("help explains and version answers") {
  const fs::path dir = fresh_dir("help");
  Run r = run_in(dir, "--help");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("--points") && Catch::Contains("--scaling") && Catch::Contains("verify"));
  r = run_in(dir, "--version");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("nova-discover 0.1.0"));
  fs::remove_all(dir);
}
