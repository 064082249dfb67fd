// A long computation announces itself on stderr and the announcement stops with it.
#include "nova/exact/heartbeat.hpp"

#include "support/command.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

using namespace std::chrono_literals;

namespace {

// Runs `work` with stderr sent to a file, and returns what was written there.
template <class Work>
std::string stderr_of(Work&& work) {
  const auto path = nova::test::fresh_dir("heartbeat") / "stderr.txt";
  std::fflush(stderr);
  const int saved = ::dup(2), file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  REQUIRE(saved >= 0);
  REQUIRE(file >= 0);
  ::dup2(file, 2);
  work();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(file);
  ::close(saved);
  return nova::test::read_file(path);
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("a heartbeat speaks after its delay, repeats, and stops with its scope", "[threads]") {
  const std::string long_run = stderr_of([] {
    const nova::exact::Heartbeat beat("tool", "proving F(22,3)", 100ms, 100ms);
    std::this_thread::sleep_for(1s);  // ten periods: three beats leave room for a loaded machine
  });
  CHECK(count(long_run, "tool: still proving F(22,3) (") >= 3);
  CHECK_THAT(long_run, Catch::Contains("Ctrl-C stops"));
  const auto start = std::chrono::steady_clock::now();
  const std::string short_run = stderr_of([] { const nova::exact::Heartbeat beat("tool", "a quick job", 5s, 5s); });
  CHECK(short_run.empty());
  CHECK(std::chrono::steady_clock::now() - start < 1s);  // the destructor does not wait out the delay
}
