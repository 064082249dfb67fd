// Reading and writing the tools' files. Reads are bounded and take regular files only, so a FIFO, a
// device or a huge file cannot hang or exhaust a tool. Writes are atomic (readers see the old
// content or the new, never a part) and touch nothing but the target: every tool's outputs
// (configs, generated sources, CSV) go through here.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace nova::exact {

// The whole content of `path`; InputError naming the path for a file that cannot be opened, is not
// a regular file, or holds more than `max_bytes`.
std::string read_text_file(const std::filesystem::path& path, std::size_t max_bytes);

// Writes `text` to `path` through a temporary file that is created exclusively, under an
// unpredictable name, in the target's folder (so a link planted there is never followed), then
// renamed over the target. Refuses, with InputError naming the path, a target that exists and is
// not a regular file (a symbolic link, FIFO, device or folder). Missing folders are created; on any
// failure the temporary file and the folders this call created are removed again.
void write_text_atomic(const std::filesystem::path& path, const std::string& text);

}  // namespace nova::exact
