// nova-gfx942-count: the instruction counts of the MFMA fused kernels in a gfx942 assembly file
// (tools/amd/gfx942_asm.hpp), one tab-separated line per basic block, then per loop, the kernel's
// total and, with --summary, the checked structure's paths that the MI300X model multiplies by its
// trip counts (tools/amd/mi300x_model.cpp). Exit status 1, with the reason, where the file or a
// kernel's structure is not what the model expects.
//   nova-gfx942-count [--summary] [--kernels NAME_PART] FILE.s
#include "gfx942_asm.hpp"

#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>

int main(int argc, char** argv) {
  bool summary = false;
  std::string part = "_fused_mfma_", file;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--summary") summary = true;
    else if (arg == "--kernels" && i + 1 < argc) part = argv[++i];
    else if (file.empty() && arg[0] != '-') file = arg;
    else {
      std::cerr << "usage: nova-gfx942-count [--summary] [--kernels NAME_PART] FILE.s\n";
      return 2;
    }
  }
  if (file.empty()) {
    std::cerr << "usage: nova-gfx942-count [--summary] [--kernels NAME_PART] FILE.s\n";
    return 2;
  }
  std::ifstream in(file);
  if (!in) {
    std::cerr << "nova-gfx942-count: cannot read " << file << '\n';
    return 1;
  }
  try {
    std::vector<nova::amd::Kernel> kernels = nova::amd::read_kernels(in, part);
    if (kernels.empty()) throw std::runtime_error("no kernel whose name contains " + part);
    for (nova::amd::Kernel& k : kernels) nova::amd::print_kernel(std::cout, k, summary);
  } catch (const std::exception& e) {
    std::cerr << "nova-gfx942-count: " << file << ": " << e.what() << '\n';
    return 1;
  }
  return 0;
}
