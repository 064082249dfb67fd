#include "compile_cache.hpp"

#include "nova/codegen/sha256.hpp"

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <stdexcept>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

namespace nova::jit {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kMagic = "nova-jit-cache/1 ";

void check_key(const std::string& key) {
  const bool ok = key.size() == 64 && key.find_first_not_of("0123456789abcdef") == std::string::npos;
  if (!ok) throw std::invalid_argument("nova: compile cache key must be 64 lower-case hex digits, got '" + key + "'");
}

// Unique among all writers of dir: the pid separates processes, the counter separates calls within one
// (the thread id only makes a leftover file easier to trace), so no two writers share a temporary file.
fs::path temp_path(const fs::path& dir, const std::string& stem) {
  static std::atomic<std::uint64_t> counter{0};
  const std::size_t thread = std::hash<std::thread::id>{}(std::this_thread::get_id());
  return dir / (stem + "." + std::to_string(::getpid()) + "." + std::to_string(thread) + "." +
                std::to_string(counter.fetch_add(1)) + ".tmp");
}

std::error_code write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return {errno, std::generic_category()};
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

// Writes a new file (O_EXCL: never someone else's) holding the parts in order; on failure removes it.
// No fsync: an entry cut short by a crash fails its length or SHA-256 check and is rebuilt.
std::error_code write_new_file(const fs::path& path, std::string_view head, std::string_view body) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return {errno, std::generic_category()};
  std::error_code ec = write_all(fd, head);
  if (!ec) ec = write_all(fd, body);
  // close() reports write-back errors some file systems (NFS) defer to it.
  if (::close(fd) != 0 && !ec) ec = {errno, std::generic_category()};
  if (ec) ::unlink(path.c_str());
  return ec;
}

// The payload of an entry file's contents, or nullopt when its header, length or digest is wrong.
std::optional<std::string> parse_entry(const std::string& file) {
  const std::size_t eol = file.find('\n');
  if (eol == std::string::npos || file.compare(0, kMagic.size(), kMagic) != 0) return std::nullopt;
  const std::string_view header = std::string_view(file).substr(kMagic.size(), eol - kMagic.size());
  const std::size_t space = header.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  std::uint64_t length = 0;
  const auto [end, err] = std::from_chars(header.data(), header.data() + space, length);
  if (err != std::errc() || end != header.data() + space || length != file.size() - eol - 1) return std::nullopt;
  std::string payload = file.substr(eol + 1);
  if (header.substr(space + 1) != codegen::sha256_hex(payload)) return std::nullopt;
  return payload;
}

void warn_not_writable(const fs::path& dir, const std::string& why) {
  std::fprintf(stderr, "nova: compile cache %s is not writable (%s); compiled kernels are kept in memory only\n",
               dir.c_str(), why.c_str());
}

}  // namespace

CompileCache::CompileCache(fs::path dir) : dir_(std::move(dir)) {
  if (dir_.empty()) return;
  // Probe with a real file: permissions, a read-only mount or a full disk show up here, once, rather
  // than in the middle of the first compile.
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (!ec) {
    const fs::path probe = temp_path(dir_, "probe");
    ec = write_new_file(probe, "", "");
    if (!ec) fs::remove(probe, ec);
  }
  if (ec)
    warn_not_writable(dir_, ec.message());
  else
    on_disk_ = true;
}

fs::path CompileCache::default_dir() {
  const auto env = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value ? value : "";
  };
  if (const std::string nova = env("NOVA_CACHE_DIR"); !nova.empty()) return nova;
  // The XDG base-directory spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
  if (const fs::path xdg = env("XDG_CACHE_HOME"); xdg.is_absolute()) return xdg / "nova";
  if (const std::string home = env("HOME"); !home.empty()) return fs::path(home) / ".cache" / "nova";
  return {};
}

std::optional<std::string> CompileCache::get(const std::string& key) {
  check_key(key);
  {
    std::lock_guard lock(mutex_);
    if (const auto it = memory_.find(key); it != memory_.end()) return it->second;
    if (!on_disk_) return std::nullopt;
  }
  const fs::path path = dir_ / (key + ".bin");
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  std::optional<std::string> payload = parse_entry(file);
  if (!payload) {
    // Best effort: a writer may have renamed a good entry over it since we read it; then the caller
    // rebuilds once more and puts it back, which costs time but never returns wrong bytes.
    std::error_code ignored;
    fs::remove(path, ignored);
    return std::nullopt;
  }
  std::lock_guard lock(mutex_);
  memory_.try_emplace(key, *payload);
  return payload;
}

void CompileCache::put(const std::string& key, std::string_view bytes) {
  check_key(key);
  {
    std::lock_guard lock(mutex_);
    memory_.insert_or_assign(key, std::string(bytes));
    if (!on_disk_) return;
  }
  // Rename over the entry is atomic: a reader opens either the old file or the new one, whole.
  const std::string header =
      std::string(kMagic) + std::to_string(bytes.size()) + " " + codegen::sha256_hex(bytes) + "\n";
  const fs::path temp = temp_path(dir_, key);
  std::error_code ec = write_new_file(temp, header, bytes);
  if (!ec) {
    fs::rename(temp, dir_ / (key + ".bin"), ec);
    if (ec) {
      std::error_code ignored;
      fs::remove(temp, ignored);
    }
  }
  if (ec) degrade(ec.message());
}

const fs::path& CompileCache::dir() const {
  // dir_ itself never changes (other threads may be building paths from it), so a degraded cache
  // answers with a shared empty path.
  static const fs::path none;
  return on_disk() ? dir_ : none;
}

bool CompileCache::on_disk() const {
  std::lock_guard lock(mutex_);
  return on_disk_;
}

void CompileCache::degrade(const std::string& why) {
  std::lock_guard lock(mutex_);
  if (!on_disk_) return;  // another thread's failed put has already warned
  on_disk_ = false;
  warn_not_writable(dir_, why);
}

}  // namespace nova::jit
