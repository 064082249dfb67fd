// Helpers for tests that drive the real command-line tools: run one through the shell in a folder,
// capture its output and exit code, and make scratch folders.
#pragma once

#include <filesystem>
#include <string>

namespace nova::test {

struct CommandResult {
  int exit_code;       // -1 when the command did not exit normally
  std::string output;  // stdout and stderr together, or stdout alone (Streams::out)
};

// Which of the command's streams the result holds: both, or stdout alone (what a program reading its
// machine-readable output sees; progress lines on stderr stay out of it).
enum class Streams { both, out };

// Runs `'executable' args` in `dir` (args are passed to the shell as written).
CommandResult run_command(const std::filesystem::path& dir, const std::string& executable, const std::string& args,
                          Streams streams = Streams::both);

// An empty folder under the system temporary folder, unique to this process and tag.
std::filesystem::path fresh_dir(const std::string& tag);

std::string read_file(const std::filesystem::path& path);

}  // namespace nova::test
