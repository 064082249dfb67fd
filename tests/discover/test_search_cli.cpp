// Runs the real nova-discover binary for the search mode's user-facing behaviour.
#include "nova/exact/config_json.hpp"

#include "support/command.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

namespace {

using Run = nova::test::CommandResult;

Run run(const std::string& args, nova::test::Streams streams = nova::test::Streams::both) {
  return nova::test::run_command(".", NOVA_DISCOVER_EXE, args, streams);
}

const std::string kQuick = " --population 16 --generations 20 --restarts 1";

}  // namespace

TEST_CASE("cli: bad search options are rejected clearly with exit code 2", "[search][cli]") {
  const std::pair<const char*, const char*> cases[] = {
      {"--tile 17,3", "the search supports 1 <= m <= 16, got F(17,3)"},
      {"--tile 4,1", "the search supports 2 <= r <= 16, got F(4,1)"},
      {"--tile 40,3", "m is limited to 32"},
      {"--tile 4,3 --objective accuracy", "--objective: accuracy not in {kappa,fp16,bf16}"},
      {"--tile 4,3 --dtype fp8", "--dtype: fp8 not in"},
      {"--tile 4,3 --dmax 0", "d_max (--dmax) must be between 1 and 1000, got 0"},
      {"--tile 4,3 --numerator-bound 0", "--numerator-bound"},
      {"--tile 4,3 --seed -1", "--seed: expected a whole number from 0 to 18446744073709551615"},
      {"--tile 4,3 --threads -2", "--threads: expected a whole number from 0 to 256"},
      {"--tile 4,3 --threads 512", "--threads: 512 is more than the largest accepted, 256"},
      {"--tile 4,3 --seed 18446744073709551616", "--seed: 18446744073709551616 is more than the largest accepted"},
      {"--tile 4,3 --symmetric-only --es-only", "exclude each other"},
      {"--tile 4,3 --tensor-core", "--tensor-core needs a storage type: --objective fp16 or bf16"},
      {"--tile 4,3 --points 0,1,-1,2,-2 --tensor-core", "--points excludes --tensor-core"},
      {"--tile 4,3 --points 0,1,-1,2,-2 --objective fp16", "--points excludes --objective"},
  };
  for (const auto& [args, message] : cases) {
    INFO(args);
    const Run r = run(std::string(args) + " --dry-run");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(message));
  }
}

TEST_CASE("cli: a search prints the result beside the baselines and writes a verified config", "[search][cli]") {
  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() / ("nova_search_cli_" + std::to_string(::getpid()) + ".json");
  const Run r = run("--tile 6,3 --objective fp16 --threads 2 --out " + file.string() + kQuick);
  REQUIRE(r.exit_code == 0);
  for (const char* expected : {"search F(6,3): objective fp16", "f6x3_fp16", "f6x3_standard", "f6x3_chebyshev",
                               "f6x3_reciprocal", "f6x3_nnpack", "improvement of f6x3_fp16", "wrote "})
    CHECK_THAT(r.output, Catch::Contains(expected));
  const Run verified = run("verify " + file.string());
  CHECK(verified.exit_code == 0);
  const auto config = nova::exact::read_config(file);
  CHECK(config.name == "f6x3_fp16");
  CHECK(config.transform.scaling == nova::exact::Scaling::BalancedUnits);  // the fp16 objective's default
  CHECK(config.provenance.at("objective") == "fp16");
  CHECK(config.provenance.at("seed") == 1);
  CHECK_THAT(config.provenance.at("command").get<std::string>(), Catch::Contains("--tile 6,3 --objective fp16"));
  fs::remove(file);
}

TEST_CASE("cli: --quiet prints nothing and --format json prints the config", "[search][cli]") {
  const Run quiet = run("--tile 4,3 --dry-run --quiet" + kQuick);
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.output.empty());
  // stdout alone: on a slow machine the heartbeat's progress lines (stderr) join the output.
  const Run json = run("--tile 4,3 --dry-run --format json --dtype fp16 --name mine" + kQuick, nova::test::Streams::out);
  REQUIRE(json.exit_code == 0);
  const auto doc = nlohmann::json::parse(json.output);
  CHECK(doc.at("name") == "f4x3_mine");
  CHECK(doc.at("provenance").at("dtype") == "fp16");
}

TEST_CASE("cli: a kappa result unfit for fp16 says so and points at the fp16 objective", "[search][cli]") {
  const Run r = run("--tile 6,3 --dry-run" + kQuick);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("note: f6x3_kappa has a predicted fp16 error of") &&
                           Catch::Contains("--objective fp16"));
  CHECK_THAT(run("--tile 6,3 --dry-run --objective fp16" + kQuick).output, !Catch::Contains("note:"));
}

// AddressSanitizer's and ThreadSanitizer's runtimes reserve more address space than the limit below
// (GCC names them by __SANITIZE_*__, clang by __has_feature).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NOVA_TEST_SANITIZER_SHADOW 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define NOVA_TEST_SANITIZER_SHADOW 1
#endif
#endif
#ifndef NOVA_TEST_SANITIZER_SHADOW
TEST_CASE("cli: threads the system refuses end the run cleanly", "[search][cli]") {
  // 600 MB of address space holds the program but not 255 more thread stacks.
  const Run r = nova::test::run_command(".", "/bin/sh",
                                        "-c 'ulimit -v 600000 && exec \"$0\" \"$@\"' '" + std::string(NOVA_DISCOVER_EXE) +
                                            "' --tile 6,3 --threads 256 --dry-run --quiet" + kQuick);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("cannot start 255 worker threads") && Catch::Contains("use fewer --threads"));
}
#endif
