#include "emit.hpp"

#include <sstream>

namespace nova::codegen::detail {

std::string kernels_file_name(const std::string& name) { return name + "_kernels.hip"; }

namespace {

// head + "(" + params + ")" + tail, the parameters wrapped (aligned after the parenthesis) so that
// no line passes 100 columns.
std::string signature(const std::string& head, const std::string& params, const std::string& tail) {
  const std::string indent(head.size() + 1, ' ');
  std::string text = head + "(";
  std::size_t line_length = text.size();
  for (std::size_t begin = 0; begin < params.size();) {
    std::size_t end = params.find(", ", begin);
    const bool last = end == std::string::npos;
    const std::string param = params.substr(begin, last ? std::string::npos : end - begin) + (last ? ")" + tail : ",");
    if (line_length > indent.size() && line_length + 1 + param.size() > 100) {
      text += "\n" + indent;
      line_length = indent.size();
    } else if (begin > 0) {
      text += " ";
      ++line_length;
    }
    text += param;
    line_length += param.size();
    begin = last ? params.size() : end + 2;
  }
  return text;
}

std::string launcher_signature(const Launcher& l) {
  return signature("hipError_t " + l.launcher, l.launcher_params + ", hipStream_t stream", "");
}

// The storage types of the 3-pass kernels: the suffix of their names and the type as HIP spells it
// (nova/kernels/hip_compat.h maps it for nvcc). The fp16 filter launcher keeps its unsuffixed name.
struct StorageType {
  const char* suffix;
  const char* type;
};
constexpr StorageType kStorageTypes[] = {{"f16", "__half"}, {"f32", "float"}, {"bf16", "hip_bfloat16"}};

}  // namespace

std::vector<Launcher> launchers() {
  std::vector<Launcher> out;
  for (const auto& [suffix, type_name] : kStorageTypes) {
    const std::string dtype = suffix, type = type_name;
    out.push_back({"filter_transform_" + dtype,
                   dtype == "f16" ? "launch_filter_transform" : "launch_filter_transform_" + dtype,
                   "Filter transform U = G g G^T: w [K][C][kR][kR] fp32 -> U [kN*kN][K][C] " + type + ".",
                   "const float* __restrict__ w, " + type + "* __restrict__ U, int K, int C",
                   "filter_transform_tiles<Transform>(w, U, K, C)", "const float* w, " + type + "* U, int K, int C",
                   "launch_filter_transform<Transform>(filter_transform_" + dtype + ", w, U, K, C"});
  }
  for (const char* layout : {"nchw", "nhwc"}) {
    for (const auto& [dtype, type_name] : kStorageTypes) {
      const std::string type = type_name;
      const std::string suffix = std::string(layout) + "_" + dtype;
      const std::string layout_upper = std::string(layout) == "nchw" ? "NCHW" : "NHWC";
      out.push_back({"input_transform_" + suffix, "launch_input_transform_" + suffix,
                     "Input transform V = B^T d B: x " + layout_upper + " " + type + " -> V " +
                         (std::string(layout) == "nchw" ? "[kN*kN][C][P] " : "[kN*kN][P][C] ") + type +
                         "; pixels outside the image are zero.",
                     "const " + type + "* __restrict__ x, " + type + "* __restrict__ V, nova::kernels::TileGrid grid",
                     "input_transform_tiles<Transform, nova::kernels::Layout::" + std::string(layout) + ">(x, V, grid)",
                     "const " + type + "* x, " + type + "* V, int N, int C, int H, int W, int pad",
                     "launch_input_transform<Transform, nova::kernels::Layout::" + std::string(layout) +
                         ">(input_transform_" + suffix + ", x, V, N, C, H, W, pad"});
    }
  }
  for (const char* layout : {"nchw", "nhwc"}) {
    for (const auto& [dtype, type_name] : kStorageTypes) {
      const std::string type = type_name;
      const std::string suffix = std::string(layout) + "_" + dtype;
      const std::string layout_upper = std::string(layout) == "nchw" ? "NCHW" : "NHWC";
      out.push_back({"output_transform_" + suffix, "launch_output_transform_" + suffix,
                     std::string("Output transform y = A^T M A (+ bias, ReLU): M ") +
                         (std::string(layout) == "nchw" ? "[kN*kN][K][P]" : "[kN*kN][P][K]") + " fp32 -> y " +
                         layout_upper + " " + type + ", border tiles clipped.",
                     "const float* __restrict__ M, " + type +
                         "* __restrict__ y, const float* __restrict__ bias, int relu, nova::kernels::TileGrid grid",
                     "output_transform_tiles<Transform, nova::kernels::Layout::" + std::string(layout) +
                         ">(M, y, bias, relu, grid)",
                     "const float* M, " + type + "* y, const float* bias, int relu, int N, int K, int H, int W, int pad",
                     "launch_output_transform<Transform, nova::kernels::Layout::" + std::string(layout) +
                         ">(output_transform_" + suffix +
                         ", M, y, bias, relu, N, K, H, W, pad"});
    }
  }
  return out;
}

// The conditions of nova/kernels/fused_kernels.hpp: n <= kFusedMaxTileSide (6), and a tile group's
// outputs fit in a warp's U buffer for the restaged epilogue (m * m < 3 n).
bool emits_fused(const Source& source) {
  const auto& tile = source.config.transform.tile;
  return tile.n() <= 6 && tile.m * tile.m < 3 * tile.n();
}

namespace {

// The storage types of the fused kernel (its mma multiplies 16-bit types) and their launchers' names.
constexpr StorageType kFusedStorageTypes[] = {kStorageTypes[0], kStorageTypes[2]};

// The fused kernel, one instantiation per (storage type, layout, launch variant), and its launchers.
std::string emit_fused() {
  std::ostringstream out;
  out << "\n// Fused convolution (NCHW or NHWC, fp16 or bf16): x, U in the fused filter layout -> y (+ bias,\n"
      << "// ReLU); V and M stay on chip. mma.sync: kKBlocks blocks of 8 output channels a warp, or chunks of\n"
      << "// the channels (kChunked). wgmma (sm_90a): kTiles tiles a group, warp-specialised. The launcher\n"
      << "// picks the kernel and its variant by the device and its shared memory.\n"
      << "template <typename T, nova::kernels::Layout kLayout, int kKBlocks, bool kChunked>\n"
      << "__global__ void __launch_bounds__(nova::kernels::kFusedThreads,\n"
      << "                                  nova::kernels::fused_blocks_per_sm(kKBlocks, kChunked))\n"
      << "fused_conv(nova::kernels::FusedConvArgs args) {\n"
      << "  nova::kernels::fused_conv_tiles<Transform, T, kLayout, kKBlocks, kChunked>(args);\n"
      << "}\n\n"
      << "template <typename T, nova::kernels::Layout kLayout, int kTiles>\n"
      << "__global__ void __launch_bounds__(nova::kernels::kWgThreads, 1) fused_wg_conv(nova::kernels::FusedConvArgs args) {\n"
      << "  nova::kernels::fused_wg_conv_body<Transform, T, kLayout, kTiles>(args);\n"
      << "}\n";
  for (const auto& [suffix, type] : kFusedStorageTypes) {
    const std::string t = type;
    out << "\n"
        << signature("hipError_t launch_fused_conv_" + std::string(suffix),
                     "const " + t + "* x, const " + t + "* U, " + t +
                         "* y, const float* bias, int relu, int N, int C, int H, int W, int K, int pad, bool nhwc, "
                         "const nova::kernels::FusedDevice& device, hipStream_t stream",
                     " {")
        << "\n"
        << "  using nova::kernels::Layout;\n"
        << "  static const nova::kernels::FusedKernels mma = {{\n";
    for (const char* layout : {"nchw", "nhwc"}) {
      const std::string at = t + ", Layout::" + layout;
      out << "      {fused_conv<" << at << ", 1, false>, fused_conv<" << at << ", 2, false>, fused_conv<" << at
          << ", 1, true>},\n";
    }
    out << "  }};\n"
        << "  static const nova::kernels::FusedWgKernels wg = {{\n";
    for (const char* layout : {"nchw", "nhwc"}) {
      const std::string at = t + ", Layout::" + layout;
      out << "      {fused_wg_conv<" << at << ", 16>, fused_wg_conv<" << at << ", 8>},\n";
    }
    out << "  }};\n"
        << "  return nova::kernels::launch_fused<Transform>(mma, wg, nhwc, x, U, y, bias, relu, N, C, H, W, K, pad, device,\n"
        << "                                               stream);\n"
        << "}\n";
  }
  return out.str();
}

}  // namespace

std::string emit_kernels(const Source& source) {
  const std::string& name = source.config.name;
  std::ostringstream out;
  out << banner(name + ": GPU filter, input and output transform kernels and their host launchers.", {source},
                "//\n"
                "// HIP source. nvcc compiles it as CUDA (-x cu) through nova/kernels/hip_compat.h. The tile\n"
                "// loops live once in nova/kernels/transform_kernels.hpp (launch: transform_launch.hpp); this\n"
                "// file binds them to this transform and defines its GpuTransformEntry. Layouts:\n"
                "// nova/kernels/transform_registry_gpu.hpp.\n")
      << "#include \"nova/kernels/hip_compat.h\"\n"
      << "#include \"nova/kernels/fused_wgmma_kernels.hpp\"\n"
      << "#include \"nova/kernels/transform_launch.hpp\"\n"
      << "#include \"nova/kernels/transform_registry_gpu.hpp\"\n\n"
      << "#include \"" << transforms_file_name(name) << "\"\n\n"
      << "namespace nova::generated::" << name << " {\n";
  for (const Launcher& l : launchers()) {
    out << "\n// " << l.summary << "\n"
        << "__global__ void __launch_bounds__(nova::kernels::kBlockThreads)\n"
        << signature(l.kernel, l.kernel_params, " {") << "\n"
        << "  nova::kernels::" << l.device_call << ";\n"
        << "}\n\n"
        << launcher_signature(l) << " {\n"
        << "  return nova::kernels::" << l.launch_call << ", stream);\n"
        << "}\n";
  }
  if (emits_fused(source)) out << emit_fused();
  out << "\n// What the transform's registry entry (registry.cpp) points at in GPU builds.\n"
      << "extern const nova::kernels::GpuTransformEntry kGpuEntry;\n"
      << "const nova::kernels::GpuTransformEntry kGpuEntry = {\n";
  for (const Launcher& l : launchers()) out << "    ." << l.launcher << " = &" << l.launcher << ",\n";
  for (const auto& [suffix, type] : kFusedStorageTypes) {
    const std::string launcher = "launch_fused_conv_" + std::string(suffix);
    out << "    ." << launcher << " = " << (emits_fused(source) ? "&" + launcher : std::string("nullptr")) << ",\n";
  }
  out << "};\n";
  out << "\n}  // namespace nova::generated::" << name << "\n";
  return out.str();
}

}  // namespace nova::codegen::detail
