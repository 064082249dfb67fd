// The JIT's on-disk compile cache: round trips across cache objects (as across processes), entries
// that do not check out read as absent, concurrent writers never expose a partial entry, and an
// unwritable directory degrades to memory instead of failing. Each test has its own directory.
#include "compile_cache.hpp"

#include "support/command.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;
using nova::jit::CompileCache;

namespace {

const std::string kKey = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

// A fresh, empty directory for one test, removed (permissions restored first) when it ends.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag) {
    static int count = 0;
    path = fs::temp_directory_path() /
           ("nova_compile_cache_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(count++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, ec);
    fs::remove_all(path, ec);
  }
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

std::vector<std::string> file_names(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

// Bytes that look like a code image: every byte value, NULs included, in no simple pattern.
std::string image_bytes(std::size_t size) {
  std::string bytes(size, '\0');
  std::uint32_t x = 12345;
  for (char& c : bytes) c = static_cast<char>((x = x * 1103515245u + 12345u) >> 24);
  return bytes;
}

// Sets or unsets environment variables for one test and puts the old values back after it.
struct EnvGuard {
  std::vector<std::pair<std::string, std::optional<std::string>>> saved;
  void set(const std::string& name, const char* value) {
    const char* old = std::getenv(name.c_str());
    saved.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    if (value)
      ::setenv(name.c_str(), value, 1);
    else
      ::unsetenv(name.c_str());
  }
  ~EnvGuard() {
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
      if (it->second)
        ::setenv(it->first.c_str(), it->second->c_str(), 1);
      else
        ::unsetenv(it->first.c_str());
    }
  }
};

}  // namespace

TEST_CASE("compile cache: put then get, in this cache and in a second one on the same dir", "[jit]") {
  TempDir tmp("roundtrip");
  const std::string bytes = std::string("ELF\0\0\x01\xff", 7) + image_bytes(1000) + std::string(3, '\0');
  {
    CompileCache cache(tmp.path);
    CHECK(cache.on_disk());
    CHECK(cache.dir() == tmp.path);
    CHECK_FALSE(cache.get(kKey));
    cache.put(kKey, bytes);
    CHECK(cache.get(kKey) == bytes);
  }
  CHECK(file_names(tmp.path) == std::vector<std::string>{kKey + ".bin"});
  const std::string file = read_file(tmp.path / (kKey + ".bin"));
  CHECK(file.substr(0, file.find('\n')).rfind("nova-jit-cache/1 " + std::to_string(bytes.size()) + " ", 0) == 0);
  CompileCache second(tmp.path);  // as another process would
  CHECK(second.get(kKey) == bytes);

  CompileCache memory_only{fs::path()};
  CHECK_FALSE(memory_only.on_disk());
  CHECK(memory_only.dir().empty());
  memory_only.put(kKey, bytes);
  CHECK(memory_only.get(kKey) == bytes);
}

TEST_CASE("compile cache: a truncated, corrupt or foreign entry reads as absent and is rebuilt", "[jit]") {
  TempDir tmp("corrupt");
  const fs::path entry = tmp.path / (kKey + ".bin");
  const std::string bytes = image_bytes(4096);
  CompileCache(tmp.path).put(kKey, bytes);
  const std::string good = read_file(entry);
  const std::size_t payload_start = good.find('\n') + 1;

  std::string flipped = good;
  flipped[payload_start + bytes.size() / 2] ^= 0x01;
  const std::pair<const char*, std::string> bad_files[] = {
      {"truncated", good.substr(0, payload_start + bytes.size() / 2)},
      {"one payload byte flipped", flipped},
      {"garbage header", "some-other-cache/7 4096 abc\n" + bytes},
  };
  for (const auto& [what, bad] : bad_files) {
    INFO(what);
    write_file(entry, bad);
    CompileCache cache(tmp.path);  // a fresh cache: nothing in memory
    CHECK_FALSE(cache.get(kKey));
    CHECK_FALSE(fs::exists(entry));  // removed, so the next process does not trip on it either
    cache.put(kKey, bytes);
    CHECK(CompileCache(tmp.path).get(kKey) == bytes);
  }
}

TEST_CASE("compile cache: two writers of one key and a reader never see a partial entry", "[jit]") {
  TempDir tmp("race");
  const std::string bytes = image_bytes(256 * 1024);  // large enough that a torn write would show
  std::atomic<int> writers_left{2}, bad_reads{0}, good_reads{0};
  const auto writer = [&] {
    CompileCache cache(tmp.path);
    for (int i = 0; i < 200; ++i) cache.put(kKey, bytes);
    --writers_left;
  };
  const auto reader = [&] {
    while (writers_left > 0) {
      const std::optional<std::string> got = CompileCache(tmp.path).get(kKey);  // fresh: reads the disk
      if (got) ++(*got == bytes ? good_reads : bad_reads);
    }
  };
  std::thread a(writer), b(writer), c(reader);
  a.join(), b.join(), c.join();
  CHECK(bad_reads == 0);
  INFO(good_reads << " good reads during the writes");
  CHECK(CompileCache(tmp.path).get(kKey) == bytes);
  CHECK(file_names(tmp.path) == std::vector<std::string>{kKey + ".bin"});  // no temporary file left
}

TEST_CASE("compile cache: threads sharing one cache", "[jit]") {
  TempDir tmp("shared");
  CompileCache cache(tmp.path);
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        std::string key = kKey;
        key[0] = "0123456789abcdef"[(t * 20 + i) % 16];
        const std::string bytes = image_bytes(100 + (t * 20 + i) % 16);
        cache.put(key, bytes);
        if (cache.get(key) != bytes) ++bad;
      }
    });
  for (std::thread& t : threads) t.join();
  CHECK(bad == 0);
  CHECK(cache.on_disk());
}

TEST_CASE("compile cache: a folder that cannot exist keeps entries in memory, even for root", "[jit]") {
  // A regular file where the folder would be: no user, root included, can create or write it.
  TempDir tmp("blocked");
  const fs::path file = tmp.path / "a-file";
  std::ofstream(file) << "not a folder";
  const std::string bytes = image_bytes(300);
  for (const fs::path& dir : {file, file / "nova"}) {
    CompileCache cache(dir);
    CHECK_FALSE(cache.on_disk());
    CHECK(cache.dir().empty());
    CHECK_NOTHROW(cache.put(kKey, bytes));
    CHECK(cache.get(kKey) == bytes);
  }
  CHECK(nova::test::read_file(file) == "not a folder");
}

TEST_CASE("compile cache: an unwritable directory keeps entries in memory", "[jit]") {
  if (::geteuid() == 0) {
    WARN("SKIP: running as root, which ignores directory permissions: read-only directory check skipped");
    return;
  }
  TempDir tmp("readonly");
  const std::string bytes = image_bytes(500);
  CompileCache before(tmp.path);  // made while still writable: its first put fails
  REQUIRE(before.on_disk());
  fs::permissions(tmp.path, fs::perms::owner_read | fs::perms::owner_exec);

  CHECK_NOTHROW(before.put(kKey, bytes));
  CHECK_FALSE(before.on_disk());
  CHECK(before.dir().empty());
  CHECK(before.get(kKey) == bytes);

  CompileCache after(tmp.path);  // made read-only: degrades at once
  CHECK_FALSE(after.on_disk());
  CHECK_NOTHROW(after.put(kKey, bytes));
  CHECK(after.get(kKey) == bytes);
  CHECK(file_names(tmp.path).empty());

  CompileCache blocked(tmp.path / "sub");  // cannot even be created
  CHECK_FALSE(blocked.on_disk());
}

TEST_CASE("compile cache: keys must be 64 lower-case hex digits", "[jit]") {
  CompileCache cache{fs::path()};
  for (const std::string& key : {std::string(), kKey.substr(1), kKey + "0", std::string(64, 'A'),
                                 "../" + kKey.substr(3), kKey.substr(0, 63) + "g"}) {
    INFO("key '" << key << "'");
    CHECK_THROWS_AS(cache.put(key, "x"), std::invalid_argument);
    CHECK_THROWS_AS(cache.get(key), std::invalid_argument);
  }
}

TEST_CASE("compile cache: default_dir follows NOVA_CACHE_DIR, then XDG_CACHE_HOME, then HOME", "[jit]") {
  EnvGuard env;
  env.set("NOVA_CACHE_DIR", "/somewhere/nova-cache");
  env.set("XDG_CACHE_HOME", "/xdg/cache");
  env.set("HOME", "/home/someone");
  CHECK(CompileCache::default_dir() == fs::path("/somewhere/nova-cache"));
  env.set("NOVA_CACHE_DIR", "");  // set but empty counts as unset
  CHECK(CompileCache::default_dir() == fs::path("/xdg/cache/nova"));
  env.set("XDG_CACHE_HOME", nullptr);
  CHECK(CompileCache::default_dir() == fs::path("/home/someone/.cache/nova"));
  env.set("HOME", nullptr);
  CHECK(CompileCache::default_dir().empty());
}
