#include "nova/exact/text_file.hpp"

#include "nova/exact/rational.hpp"  // InputError

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace nova::exact {
namespace {

namespace fs = std::filesystem;

std::string system_error_text() { return std::strerror(errno); }

// A descriptor closed when it goes out of scope (close() reports the error of an explicit close).
class Descriptor {
 public:
  explicit Descriptor(int fd = -1) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }
  bool close() { return ::close(std::exchange(fd_, -1)) == 0; }

 private:
  int fd_;
};

// The folders of `dir` that do not exist yet, outermost first.
std::vector<fs::path> missing_folders(const fs::path& dir) {
  std::vector<fs::path> missing;
  for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(p, ec))) break;
    missing.insert(missing.begin(), p);
    if (p == p.parent_path()) break;
  }
  return missing;
}

// What a write undoes unless it succeeds: its temporary file and the folders it created.
struct Undo {
  std::string temporary;
  std::vector<fs::path> created;
  bool done = false;
  ~Undo() {
    if (done) return;
    if (!temporary.empty()) ::unlink(temporary.c_str());
    for (auto it = created.rbegin(); it != created.rend(); ++it) ::rmdir(it->c_str());
  }
};

void write_all(int fd, const std::string& text, const std::string& shown) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw InputError(shown + ": cannot write file: " + system_error_text());
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

std::string read_text_file(const fs::path& path, std::size_t max_bytes) {
  const std::string shown = path.string();
  const Descriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));  // a FIFO must not block the open
  if (file.get() < 0) throw InputError(shown + ": cannot open file: " + system_error_text());
  struct stat st {};
  if (::fstat(file.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw InputError(shown + ": not a regular file (a FIFO, device or folder); not read");
  if (static_cast<std::size_t>(st.st_size) > max_bytes)
    throw InputError(shown + ": " + std::to_string(st.st_size) + " bytes, more than the " + std::to_string(max_bytes) +
                     " this reader accepts");
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(file.get(), text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(shown + ": cannot read file: " + system_error_text());
    if (n == 0) break;  // the file shrank while being read
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return text;
}

void write_text_atomic(const fs::path& path, const std::string& text) {
  const std::string shown = path.string();
  if (path.filename().empty()) throw InputError(shown + ": names a folder, not a file");
  struct stat existing {};
  const bool replaces = ::lstat(path.c_str(), &existing) == 0;
  if (replaces && !S_ISREG(existing.st_mode))
    throw InputError(shown + ": exists and is not a regular file (a link, FIFO, device or folder); not replaced");

  Undo undo;
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  for (const fs::path& folder : missing_folders(dir)) {
    if (::mkdir(folder.c_str(), 0777) != 0 && errno != EEXIST)
      throw InputError(shown + ": cannot create folder " + folder.string() + ": " + system_error_text());
    undo.created.push_back(folder);
  }

  // mkstemp opens with O_CREAT | O_EXCL: an existing name, a planted link included, is never reused.
  std::string temporary = (dir / ("." + path.filename().string() + ".XXXXXX")).string();
  Descriptor file(::mkstemp(temporary.data()));
  if (file.get() < 0) throw InputError(shown + ": cannot create a temporary file beside it: " + system_error_text());
  undo.temporary = temporary;
  write_all(file.get(), text, shown);
  // mkstemp makes 0600: keep the replaced file's mode, or make a new one readable by all.
  const mode_t mode = replaces ? existing.st_mode & 07777 : 0644;
  if (::fchmod(file.get(), mode) != 0 || ::fsync(file.get()) != 0 || !file.close())
    throw InputError(shown + ": cannot write file: " + system_error_text());
  if (::rename(temporary.c_str(), path.c_str()) != 0)
    throw InputError(shown + ": cannot replace file: " + system_error_text());
  undo.done = true;
}

}  // namespace nova::exact
