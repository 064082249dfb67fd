// nova_transform_load and nova_transform_compile (nova/jit.h) without a GPU: transforms that are not
// in configs/ (tests/jit/data/) load, verify and run on the CPU within the precision model; bad files
// are refused with a clear status and register nothing; NVRTC compiles them for sm_90 through a disk
// cache that survives a truncated entry and two compilers at once, and an F(4,3)'s fused kernels for sm_90a.
#include "float16.hpp"
#include "nova/jit.hpp"
#include "support/command.hpp"
#include "support/dtype_cases.hpp"

#include <catch2/catch.hpp>
#include <elf.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kData = fs::path(NOVA_SOURCE_DIR) / "tests/jit/data";

std::string read(const fs::path& p) { return nova::test::read_file(p); }

fs::path write(const fs::path& dir, const std::string& name, const std::string& text) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << text;
  return dir / name;
}

// `text` with the first `from` after `anchor` replaced by `to`.
std::string edited(std::string text, const std::string& anchor, const std::string& from, const std::string& to) {
  const size_t at = text.find(from, text.find(anchor));
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

nova_transform_info_t load(const fs::path& p) {
  nova_transform_info_t info{};
  const nova_status_t st = nova_transform_load(p.c_str(), &info);
  INFO(nova_jit_last_error());
  REQUIRE(st == NOVA_STATUS_SUCCESS);
  return info;
}

struct Run {
  nova_status_t status;
  double rel_l2;
  std::vector<float> y;
};

// One forward on the CPU backend in the dtype and layout asked for, against FP64 direct convolution
// of the same (storage-rounded) input.
Run run(const nova::ConvDesc& d) {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int r = d.kernel_size;
  const int64_t ho = d.h + 2 * d.pad - r + 1, wo = d.w + 2 * d.pad - r + 1;
  std::vector<float> x(static_cast<size_t>(d.n * d.c * d.h * d.w)), w(static_cast<size_t>(d.k * d.c * r * r));
  for (auto& v : x) v = normal(rng);
  for (auto& v : w) v = normal(rng) / static_cast<float>(r * std::sqrt(d.c));
  const nova::runtime::Float16Codec* codec = nova::runtime::float16_codec(d.dtype);
  std::vector<uint16_t> x16(x.size()), y16(static_cast<size_t>(d.n * d.k * ho * wo));
  if (codec)
    for (size_t i = 0; i < x.size(); ++i) x[i] = codec->decode(x16[i] = codec->encode(x[i]));
  std::vector<float> y(y16.size()), ref(y16.size());
  nova::ConvDesc rd = d;  // the reference reads fp32 in d's layout
  rd.dtype = NOVA_DTYPE_FP32;
  nova::check(nova_conv_reference(&rd, x.data(), w.data(), nullptr, 0, ref.data()));
  nova::Handle h(NOVA_BACKEND_CPU);
  const void* xp = codec ? static_cast<const void*>(x16.data()) : x.data();
  void* yp = codec ? static_cast<void*>(y16.data()) : y.data();
  const nova_status_t st = nova_conv_forward(h.get(), &d, xp, w.data(), 1, nullptr, 0, yp, nullptr, 0);
  if (st != NOVA_STATUS_SUCCESS) return {st, 0, {}};
  if (codec)
    for (size_t i = 0; i < y.size(); ++i) y[i] = codec->decode(y16[i]);
  double e2 = 0, r2 = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    if (!std::isfinite(y[i])) return {st, HUGE_VAL, y};
    e2 += (double{y[i]} - ref[i]) * (double{y[i]} - ref[i]);
    r2 += double{ref[i]} * ref[i];
  }
  return {st, std::sqrt(e2 / r2), y};
}

nova::ConvDesc desc(const char* transform, int r, nova_dtype_t dtype, nova_layout_t layout) {
  nova::ConvDesc d;
  d.n = 2, d.c = 12, d.h = 17, d.w = 22, d.k = 10;
  d.kernel_size = r;
  d.pad = r / 2;
  d.dtype = dtype;
  d.layout = layout;
  d.transform = transform;
  return d;
}

// test_cpu_conv.cpp's tolerance: the precision model 0.7 u amp2D with room for the output's rounding.
double tolerance(double amp2d, nova_dtype_t dtype) {
  const nova::test::DtypeCase& d = nova::test::dtype_case(dtype);
  const double predicted = 0.7 * d.u * amp2d;
  if (dtype == NOVA_DTYPE_BF16) return 1.5 * std::hypot(predicted, d.u / std::sqrt(3.0));
  return (dtype == NOVA_DTYPE_FP16 ? 2.0 : 4.0) * predicted + 4.0 * d.u;
}

bool nvrtc_available(std::string& why) {
  // F(5,3) has no fused kernels: compiling it is the 3-pass group alone, a few seconds.
  load(kData / "f5x3_fp16.json");
  nova_compile_report_t report{};
  if (nova_transform_compile("f5x3_fp16", "sm_90", &report) == NOVA_STATUS_SUCCESS) return true;
  why = nova_jit_last_error();
  return why.find("NVRTC is not available") == std::string::npos && why.find("without nvrtc.h") == std::string::npos;
}

// A fresh compile cache for this process (NOVA_CACHE_DIR, which its first compile reads), and whether NVRTC is here to
// compile into it: false where it is not (the test then says SKIP); a compile that fails otherwise fails the test.
bool fresh_cache_with_nvrtc(const std::string& tag, fs::path& cache) {
  cache = nova::test::fresh_dir(tag);
  REQUIRE(setenv("NOVA_CACHE_DIR", cache.c_str(), 1) == 0);
  std::string why;
  if (!nvrtc_available(why)) {
    WARN("SKIP: " << why);
    return false;
  }
  INFO(why);
  REQUIRE(why.empty());
  return true;
}

// The size of section `name` of the ELF image `image` (a cubin: a kernel's code is `.text.<kernel>`), 0 where it has
// none or the image is not one.
std::size_t elf_section_size(const std::string& image, const std::string& name) {
  Elf64_Ehdr header;
  if (image.size() < sizeof header || image.compare(0, SELFMAG, ELFMAG) != 0) return 0;
  std::memcpy(&header, image.data(), sizeof header);
  const auto section = [&](std::size_t i) {
    Elf64_Shdr s{};
    const std::size_t at = header.e_shoff + i * header.e_shentsize;
    if (at + sizeof s <= image.size()) std::memcpy(&s, image.data() + at, sizeof s);
    return s;
  };
  const Elf64_Shdr names = section(header.e_shstrndx);
  for (std::size_t i = 0; i < header.e_shnum; ++i) {
    const Elf64_Shdr s = section(i);
    if (names.sh_offset + s.sh_name < image.size() && image.data() + names.sh_offset + s.sh_name == name) return s.sh_size;
  }
  return 0;
}

}  // namespace

TEST_CASE("a transform the runtime was not built with loads and runs on the CPU within the precision model", "[jit]") {
  const int before = nova_transform_count();
  const nova_transform_info_t t = load(kData / "f5x3_fp16.json");
  CHECK(std::string(t.name) == "f5x3_fp16");
  CHECK(t.m == 5);
  CHECK(t.r == 3);
  REQUIRE(nova_transform_count() == before + 1);
  nova_transform_info_t listed{};
  REQUIRE(nova_transform_info(before, &listed) == NOVA_STATUS_SUCCESS);
  CHECK(std::string(listed.name) == t.name);
  for (const nova::test::DtypeCase& dtype : nova::test::kDtypes)
    for (const nova_layout_t layout : {NOVA_LAYOUT_NCHW, NOVA_LAYOUT_NHWC}) {
      nova::ConvDesc d = desc(t.name, 3, dtype.dtype, layout);
      d.allow_inaccurate = 1;  // bf16: F(5,3)'s model is above bf16's default budget
      const Run r = run(d);
      INFO(dtype.name << (layout == NOVA_LAYOUT_NHWC ? " NHWC" : " NCHW") << ": rel L2 " << r.rel_l2);
      REQUIRE(r.status == NOVA_STATUS_SUCCESS);
      CHECK(r.rel_l2 <= tolerance(t.amp2d, dtype.dtype));
    }
}

TEST_CASE("a loaded transform's straight-line programs compute what its compiled code does, bit for bit", "[jit]") {
  // f4x3_standard under another name: the CPU runs the built-in one's generated code and the loaded
  // one's programs, from the same JSON.
  const fs::path dir = nova::test::fresh_dir("jit_copy");
  const std::string copy = edited(read(fs::path(NOVA_SOURCE_DIR) / "configs/f4x3_standard.json"), "\"name\"",
                                  "f4x3_standard", "f4x3_standardcopy");
  load(write(dir, "copy.json", copy));
  for (const nova_dtype_t dtype : {NOVA_DTYPE_FP32, NOVA_DTYPE_FP16}) {
    const Run built_in = run(desc("f4x3_standard", 3, dtype, NOVA_LAYOUT_NCHW));
    const Run loaded = run(desc("f4x3_standardcopy", 3, dtype, NOVA_LAYOUT_NCHW));
    REQUIRE(built_in.status == NOVA_STATUS_SUCCESS);
    REQUIRE(loaded.status == NOVA_STATUS_SUCCESS);
    CHECK(built_in.y == loaded.y);
  }
}

TEST_CASE("auto and the error budget see a loaded transform like a built-in one", "[jit]") {
  const nova_transform_info_t t = load(kData / "f2x5_fp16.json");
  REQUIRE(t.r == 5);
  // A budget only F(2,5) with these points meets among the r = 5 transforms: auto must take it.
  nova::ConvDesc d = desc("auto", 5, NOVA_DTYPE_FP16, NOVA_LAYOUT_NHWC);
  d.max_error = 0.7 * 0x1p-11 * t.amp2d * 1.01;
  nova::Handle h(NOVA_BACKEND_CPU);
  CHECK(h.transform_name(d) == t.name);
  const Run r = run(d);
  REQUIRE(r.status == NOVA_STATUS_SUCCESS);
  CHECK(r.rel_l2 <= tolerance(t.amp2d, NOVA_DTYPE_FP16));
}

TEST_CASE("bad transform files get a clear status and register nothing", "[jit]") {
  const fs::path dir = nova::test::fresh_dir("jit_bad");
  const std::string good = read(kData / "f5x3_fp16.json");
  struct Bad {
    const char* what;
    std::string text;  // empty: no file at all
    nova_status_t status;
    const char* says;  // part of nova_jit_last_error()
  };
  const Bad cases[] = {
      {"missing file", "", NOVA_STATUS_FILE_ERROR, "cannot open"},
      {"malformed JSON", good.substr(0, good.size() / 2), NOVA_STATUS_INVALID_CONFIG, ""},
      {"one edited matrix entry", edited(good, "\"AT\"", "\"8/7\"", "\"9/7\""), NOVA_STATUS_INVALID_CONFIG, "AT"},
      {"colliding points", edited(good, "\"points\"", "\"6/7\",\"-6/7\"", "\"2/7\",\"-6/7\""),
       NOVA_STATUS_INVALID_CONFIG, "point"},
  };
  for (const Bad& b : cases) {
    INFO(b.what);
    const std::string name = std::string("f5x3_bad") + std::to_string(&b - cases);
    const fs::path file = dir / (name + ".json");
    if (!b.text.empty()) write(dir, file.filename().string(), edited(b.text, "\"name\"", "f5x3_fp16", name));
    const int before = nova_transform_count();
    nova_transform_info_t info{};
    const nova_status_t st = nova_transform_load(file.c_str(), &info);
    const std::string error = nova_jit_last_error();
    INFO(error);
    CHECK(st == b.status);
    CHECK(error.find(b.says) != std::string::npos);
    CHECK_FALSE(error.empty());
    CHECK(nova_transform_count() == before);
    nova::Handle h(NOVA_BACKEND_CPU);
    const nova::ConvDesc d = desc(name.c_str(), 3, NOVA_DTYPE_FP32, NOVA_LAYOUT_NCHW);
    const char* resolved = nullptr;
    CHECK(nova_conv_transform_name(h.get(), &d, &resolved) == NOVA_STATUS_UNKNOWN_TRANSFORM);
  }
  CHECK(nova_transform_load(nullptr, nullptr) == NOVA_STATUS_INVALID_ARGUMENT);
}

TEST_CASE("a name is one transform: reloading adds nothing, other content under a taken name is refused", "[jit]") {
  load(kData / "f5x3_fp16.json");
  const int count = nova_transform_count();
  load(kData / "f5x3_fp16.json");
  CHECK(nova_transform_count() == count);
  const fs::path dir = nova::test::fresh_dir("jit_names");
  const fs::path other = write(dir, "other.json", read(kData / "f5x3_fp16.json") + "\n");  // other bytes
  CHECK(nova_transform_load(other.c_str(), nullptr) == NOVA_STATUS_TRANSFORM_EXISTS);
  const fs::path built_in = fs::path(NOVA_SOURCE_DIR) / "configs/f4x3_standard.json";
  CHECK(nova_transform_load(built_in.c_str(), nullptr) == NOVA_STATUS_TRANSFORM_EXISTS);
  CHECK(std::string(nova_jit_last_error()).find("built into") != std::string::npos);
  CHECK(nova_transform_count() == count);
  CHECK(nova_transform_compile("f4x3_standard", "sm_90", nullptr) == NOVA_STATUS_UNKNOWN_TRANSFORM);
}

TEST_CASE("NVRTC compiles a loaded transform for sm_90 through the cache, which survives a truncated entry",
          "[jit][nvrtc]") {
  fs::path cache;
  if (!fresh_cache_with_nvrtc("jit_cache", cache)) return;
  nova_compile_report_t again{};
  REQUIRE(nova_transform_compile("f5x3_fp16", "sm_90", &again) == NOVA_STATUS_SUCCESS);
  CHECK(again.from_cache == 1);
  CHECK(again.image_bytes > 0);
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(cache)) entries.push_back(e.path());
  REQUIRE(entries.size() == 1);
  CHECK(read(entries[0]).find("\x7f" "ELF") != std::string::npos);  // a cubin is an ELF image

  // Another process: a truncated entry is rebuilt, then read back.
  const std::string args = (kData / "f5x3_fp16.json").string() + " --arch sm_90";
  const std::string env = "NOVA_CACHE_DIR=" + cache.string() + " ";
  fs::resize_file(entries[0], fs::file_size(entries[0]) / 2);
  nova::test::CommandResult r = nova::test::run_command(cache, "env", env + "'" NOVA_JIT_EXE "' " + args);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("(NVRTC)") != std::string::npos);
  r = nova::test::run_command(cache, "env", env + "'" NOVA_JIT_EXE "' " + args);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("(from the cache)") != std::string::npos);
}

TEST_CASE("NVRTC compiles a loaded F(4,3) transform's fused kernels for sm_90a, the wgmma kernel's as code, not a trap",
          "[jit][nvrtc]") {
  fs::path cache;
  if (!fresh_cache_with_nvrtc("jit_cache_sm90a", cache)) return;
  // f4x3_standard's transform under a name the runtime was not built with: the wgmma kernel with its tensor-core
  // input path (B^T (x) B^T exact in fp16 and bf16), which only sm_90a has. Compiled by nova-jit in a process of its
  // own with a cache of its own, whose entries are then the images (this process's cache is its first compile's).
  const fs::path work = nova::test::fresh_dir("jit_f4x3");
  const fs::path json = write(work, "f4x3_loaded.json",
                              edited(read(fs::path(NOVA_SOURCE_DIR) / "configs/f4x3_standard.json"), "\"name\"",
                                     "f4x3_standard", "f4x3_loaded"));
  const fs::path images_dir = work / "cache";
  const nova::test::CommandResult r = nova::test::run_command(
      work, "env", "NOVA_CACHE_DIR=" + images_dir.string() + " '" NOVA_JIT_EXE "' " + json.string() + " --arch sm_90a");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // Where sm_90a's features were not on, the wgmma kernels would be a trap of a few hundred bytes, as the MFMA kernels
  // are on NVIDIA.
  std::vector<std::string> images;
  for (const auto& e : fs::directory_iterator(images_dir)) {
    const std::string entry = read(e.path());
    images.push_back(entry.substr(entry.find('\n') + 1));  // after the entry's header line
  }
  const auto code_bytes = [&](const std::string& kernel) {
    std::size_t bytes = 0;
    for (const std::string& image : images) bytes += elf_section_size(image, ".text.nova_f4x3_loaded_" + kernel);
    return bytes;
  };
  for (const char* layout : {"nhwc", "nchw"})
    for (const char* type : {"f16", "bf16"}) {
      const std::string kernel = std::string(layout) + "_" + type;
      INFO(kernel);
      CHECK(code_bytes("fused_wgmma_" + kernel + "_v0") > 32768);  // groups of 16 (NHWC: the tensor-core path too)
      CHECK(code_bytes("fused_wgmma_" + kernel + "_v1") > 32768);  // groups of 8
      CHECK(code_bytes("fused_mma_" + kernel + "_v0") > 32768);  // the mma.sync kernel (sm_80 and later)
      const std::size_t trap = code_bytes("fused_mfma_" + kernel + "_v1");  // AMD's: absent here
      CHECK(trap > 0);
      CHECK(trap <= 1024);
    }
}

TEST_CASE("two processes compiling the same transform at once both finish, and leave one valid entry",
          "[jit][nvrtc]") {
  fs::path cache;
  if (!fresh_cache_with_nvrtc("jit_cache_race", cache)) return;
  fs::remove_all(cache);  // what the check above compiled: both processes start from nothing
  const std::string command = "NOVA_CACHE_DIR=" + cache.string() + " '" NOVA_JIT_EXE "' " +
                              (kData / "f5x3_fp16.json").string() + " --arch sm_90";
  nova::test::CommandResult first{}, second{};
  std::thread a([&] { first = nova::test::run_command(fs::temp_directory_path(), "env", command); });
  std::thread b([&] { second = nova::test::run_command(fs::temp_directory_path(), "env", command); });
  a.join();
  b.join();
  INFO(first.output << second.output);
  CHECK(first.exit_code == 0);
  CHECK(second.exit_code == 0);
  int entries = 0;
  for (const auto& e : fs::directory_iterator(cache)) entries += e.path().extension() == ".bin" ? 1 : 1000;
  CHECK(entries == 1);  // one entry, no temporary file left
  const nova::test::CommandResult third = nova::test::run_command(fs::temp_directory_path(), "env", command);
  CHECK(third.exit_code == 0);
  CHECK(third.output.find("(from the cache)") != std::string::npos);
}

TEST_CASE("loads while other threads look transforms up and run them", "[jit][threads]") {
  // Copies of F(5,3) under new names, loaded by one thread while others resolve "auto", list the
  // transforms and run a loaded one: the table grows under their lookups.
  const fs::path dir = nova::test::fresh_dir("jit_threads");
  const std::string text = read(kData / "f5x3_fp16.json");
  std::vector<fs::path> copies;
  for (int i = 0; i < 8; ++i)
    copies.push_back(write(dir, std::to_string(i) + ".json",
                           edited(text, "\"name\"", "f5x3_fp16", "f5x3_copy" + std::to_string(i))));
  load(copies[0]);
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::thread loader([&] {
    for (const fs::path& p : copies)
      if (nova_transform_load(p.c_str(), nullptr) != NOVA_STATUS_SUCCESS) ++failures;
    done = true;
  });
  std::vector<std::thread> users;
  for (int u = 0; u < 3; ++u)
    users.emplace_back([&] {
      nova::Handle h(NOVA_BACKEND_CPU);
      nova::ConvDesc d = desc("auto", 3, NOVA_DTYPE_FP32, NOVA_LAYOUT_NCHW);
      d.n = 1, d.c = 4, d.k = 4, d.h = d.w = 9;
      nova::ConvDesc loaded = d;
      loaded.transform = "f5x3_copy0";
      do {
        const char* name = nullptr;
        if (nova_conv_transform_name(h.get(), &d, &name) != NOVA_STATUS_SUCCESS) ++failures;
        for (int i = 0; i < nova_transform_count(); ++i) {
          nova_transform_info_t info{};
          if (nova_transform_info(i, &info) != NOVA_STATUS_SUCCESS || !info.name) ++failures;
        }
        if (run(loaded).status != NOVA_STATUS_SUCCESS) ++failures;
      } while (!done);
    });
  loader.join();
  for (std::thread& t : users) t.join();
  CHECK(failures == 0);
}
