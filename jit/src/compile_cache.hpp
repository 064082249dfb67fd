// Compiled GPU code images by key, kept on disk so that a later process skips the compile. Entries
// are written to a temporary file and renamed into place, so concurrent writers (threads or
// processes) and readers never see a partial entry; an entry that does not check out is rebuilt.
#pragma once

#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace nova::jit {

// Compiled GPU code images by key, on disk (one file per key) and in memory.
class CompileCache {
 public:
  // dir empty: in-memory only. A directory that cannot be created or written degrades to
  // in-memory only, with one warning line on stderr ("nova: compile cache <dir> is not writable (<why>); compiled kernels are kept in memory only").
  explicit CompileCache(std::filesystem::path dir);
  // $NOVA_CACHE_DIR if set and non-empty; else $XDG_CACHE_HOME/nova; else $HOME/.cache/nova; else empty.
  static std::filesystem::path default_dir();
  // get and put throw std::invalid_argument unless key is 64 lower-case hex digits (a SHA-256 the caller
  // made of everything the code depends on), which also keeps the file name inside dir.
  // The bytes stored under `key`, or nullopt. An entry on disk whose header, length or SHA-256 does not
  // check out (truncated, corrupt, another format) counts as absent: it is removed (best effort) so the caller rebuilds it.
  std::optional<std::string> get(const std::string& key);
  // Stores bytes under key: in memory always; on disk by writing a temporary file in the same directory
  // (unique name: key + pid + thread id + counter) and renaming it over the entry, so readers never see a
  // partial entry and two processes writing the same key both leave a valid one. A failed write (full
  // disk, read-only) warns once and switches the cache to in-memory only; it never throws.
  void put(const std::string& key, std::string_view bytes);
  const std::filesystem::path& dir() const;  // empty when in-memory only
  bool on_disk() const;

 private:
  // Turns the disk off and warns, once per cache: later puts would fail the same way.
  void degrade(const std::string& why);

  const std::filesystem::path dir_;  // never changes, so entry paths can be built without the lock
  mutable std::mutex mutex_;         // guards memory_ and on_disk_
  std::unordered_map<std::string, std::string> memory_;
  bool on_disk_ = false;
};

}  // namespace nova::jit
