#include "support/command.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace nova::test {

CommandResult run_command(const std::filesystem::path& dir, const std::string& executable, const std::string& args,
                          Streams streams) {
  const std::string cmd =
      "cd '" + dir.string() + "' && '" + executable + "' " + args + (streams == Streams::both ? " 2>&1" : " 2>/dev/null");
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed for: " + cmd);
  std::string out;
  char buf[4096];
  while (const std::size_t got = fread(buf, 1, sizeof buf, pipe)) out.append(buf, got);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::filesystem::path fresh_dir(const std::string& tag) {
  const auto dir = std::filesystem::temp_directory_path() / ("nova_test_" + tag + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace nova::test
