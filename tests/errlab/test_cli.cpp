// Runs the real nova-errlab binary: bad input must give a clear message and a non-zero exit.
#include "support/command.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace {

using Result = nova::test::CommandResult;

Result run(const std::string& args) { return nova::test::run_command(NOVA_SOURCE_DIR, NOVA_ERRLAB_EXE, args); }

const std::string kSmall = "--channels 8 --filters 8 --tiles 512 ";

}  // namespace

TEST_CASE("nova-errlab measures a config and prints a table, CSV or JSON", "[cli]") {
  Result r = run(kSmall + "configs/f4x3_nova.json");
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("f4x3_nova") != std::string::npos);
  CHECK(r.output.find("rel L2 error") != std::string::npos);

  r = run(kSmall + "--format csv --model paper-int8 configs/f4x3_nova.json configs/f4x3_standard.json");
  CHECK(r.exit_code == 0);
  CHECK(r.output.rfind("config,m,r,", 0) == 0);
  CHECK(r.output.find("\nf4x3_standard,4,3,") != std::string::npos);

  // The input transform's arithmetic is its own column, the compute type's where not given.
  r = run(kSmall + "--format csv --input-compute-type fp16 configs/f4x3_nova.json");
  CHECK(r.exit_code == 0);
  CHECK(r.output.find(",matrices,compute,input_compute,") != std::string::npos);
  CHECK(r.output.find(",kernel-fp16+custom,") != std::string::npos);
  CHECK(r.output.find(",fp32,fp32,fp16,gaussian,") != std::string::npos);  // matrices, compute, input arithmetic

  r = run(kSmall + "--format json --scaling balanced configs/f4x3_nova.json");
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("\"scaling\": \"balanced\"") != std::string::npos);
}

TEST_CASE("nova-errlab rejects bad input with a clear message and exit code 2", "[cli]") {
  struct Case {
    const char* args;
    const char* message;
  };
  const Case cases[] = {
      {"--transformed-input-type fp17 configs/f4x3_nova.json",
       "--transformed-input-type: unknown number format 'fp17' (expected fp64, fp32, fp16, bf16, int8"},
      {"--model fancy configs/f4x3_nova.json", "--model: unknown precision model 'fancy'"},
      {"configs/no_such_config.json", "configs/no_such_config.json: cannot open file"},
      {"--channels 0 configs/f4x3_nova.json", "--channels must be between 1 and 512, got 0"},
      {"--filters 100000 configs/f4x3_nova.json", "--filters must be between 1 and 512"},
      {"--tiles 0 configs/f4x3_nova.json", "--tiles must be between 1 and"},
      {"--input-dist cauchy configs/f4x3_nova.json", "--input-dist: unknown distribution 'cauchy'"},
      {"--compute-type int8 configs/f4x3_nova.json", "must be a floating-point format"},
      {"--input-compute-type int8 configs/f4x3_nova.json", "--input-compute-type) must be a floating-point format"},
      {"--input-compute-type fp8 configs/f4x3_nova.json", "--input-compute-type: unknown number format 'fp8'"},
      {"--format xml configs/f4x3_nova.json", "--format"},
      {"--channels many configs/f4x3_nova.json", "--channels"},
      {"", "no config files given"},
      {"CMakeLists.txt", "CMakeLists.txt: malformed JSON"},
      // Seeds and thread counts are never wrapped or clamped.
      {"--seed -1 configs/f4x3_nova.json", "--seed: expected a whole number from 0 to 18446744073709551615"},
      {"--seed 18446744073709551616 configs/f4x3_nova.json", "more than the largest accepted, 18446744073709551615"},
      {"--threads 1024 configs/f4x3_nova.json", "--threads: 1024 is more than the largest accepted, 256"},
      // Memory is estimated before anything is allocated.
      {"--threads 256 -C 512 -K 512 --tiles 4194304 configs/f6x3_nova.json", "more than the limit of 4096 MiB"},
  };
  for (const Case& c : cases) {
    const Result r = run(c.args);
    INFO("nova-errlab " << c.args << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(c.message) != std::string::npos);
    CHECK(r.output.find("internal error") == std::string::npos);
  }
}

TEST_CASE("nova-errlab never reports a perfect score for a signal that vanished", "[cli]") {
  // Inputs of 1e-170: fp16 storage flushes every one of them to zero, so every output is zero.
  const Result r = run(kSmall + "--format csv --input-scale 1e-170 configs/f4x3_nova.json");
  REQUIRE(r.exit_code == 0);
  const std::string row = r.output.substr(r.output.find("\nf4x3_nova,") + 1);
  // rel_l2_error is 1 (all signal lost), and every one of the 512 tiles' 16 outputs is counted as flushed.
  CHECK(row.find(",1,6.07501e-170,6.07501e-170,") != std::string::npos);
  CHECK(row.find(",0,8192,") != std::string::npos);
}
