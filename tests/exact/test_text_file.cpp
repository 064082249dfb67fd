// The one writer of every tool's outputs: atomic, never through a link, never over a special file,
// and a failed write leaves nothing behind.
#include "nova/exact/text_file.hpp"
#include "nova/exact/rational.hpp"  // InputError
#include "support/command.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <string>

using nova::exact::InputError;
using nova::exact::write_text_atomic;
using nova::test::fresh_dir;
using nova::test::read_file;
namespace fs = std::filesystem;

namespace {

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}));
}

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("an atomic write replaces the file and leaves nothing else") {
  const fs::path dir = fresh_dir("atomic_replace");
  write_text_atomic(dir / "out.json", "first");
  CHECK(mode_of(dir / "out.json") == 0644);
  fs::permissions(dir / "out.json", fs::perms::owner_read | fs::perms::owner_write);
  write_text_atomic(dir / "out.json", "second");
  CHECK(read_file(dir / "out.json") == "second");
  CHECK(mode_of(dir / "out.json") == 0600);  // a replaced file keeps its mode
  CHECK(entries(dir) == 1);
  fs::remove_all(dir);
}

TEST_CASE("a link planted under the old fixed temporary name is never written through") {
  const fs::path dir = fresh_dir("atomic_planted");
  const fs::path victim = dir / "victim.txt";
  write_text_atomic(victim, "precious");
  fs::create_symlink(victim, dir / ".out.json.tmp");
  write_text_atomic(dir / "out.json", "new");
  CHECK(read_file(victim) == "precious");
  CHECK(fs::is_regular_file(fs::symlink_status(dir / "out.json")));
  CHECK(read_file(dir / "out.json") == "new");
  fs::remove_all(dir);
}

TEST_CASE("a target that is not a regular file is refused and kept") {
  const fs::path dir = fresh_dir("atomic_special");
  const fs::path victim = dir / "victim.txt";
  write_text_atomic(victim, "precious");
  fs::create_symlink(victim, dir / "link.json");
  REQUIRE(::mkfifo((dir / "fifo.json").c_str(), 0600) == 0);
  fs::create_directory(dir / "folder.json");
  for (const fs::path& target : {dir / "link.json", dir / "fifo.json", dir / "folder.json", fs::path("/dev/null")}) {
    INFO(target);
    try {
      write_text_atomic(target, "new");
      FAIL("no error");
    } catch (const InputError& e) {
      CHECK_THAT(e.what(), Catch::Contains("not a regular file") && Catch::Contains(target.string()));
    }
  }
  CHECK(fs::is_symlink(dir / "link.json"));
  CHECK(fs::is_fifo(dir / "fifo.json"));
  CHECK(fs::is_directory(dir / "folder.json"));
  CHECK(read_file(victim) == "precious");
  CHECK(entries(dir) == 4);  // no temporary file left
  fs::remove_all(dir);
}

TEST_CASE("a failed write removes the folders it created") {
  const fs::path dir = fresh_dir("atomic_failed");
  write_text_atomic(dir / "a" / "b" / "ok.json", "x");  // missing folders are created
  CHECK(read_file(dir / "a" / "b" / "ok.json") == "x");
  // A name the file system accepts but whose temporary name it does not (NAME_MAX is 255).
  const fs::path too_long = dir / "new" / "deeper" / (std::string(250, 'n') + ".json");
  CHECK_THROWS_AS(write_text_atomic(too_long, "x"), InputError);
  CHECK_FALSE(fs::exists(dir / "new"));
  CHECK(entries(dir) == 1);
  fs::remove_all(dir);
}
