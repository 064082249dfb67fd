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

// The storage types as HIP spells them (nova/kernels/hip_compat.h maps them for nvcc and NVRTC).
const char* storage_type(kernels::Storage s) {
  return s == kernels::Storage::f16 ? "__half" : s == kernels::Storage::f32 ? "float" : "hip_bfloat16";
}

std::string layout_value(kernels::Layout l) {
  return std::string("nova::kernels::Layout::") + kernels::layout_name(l);
}

// One kernel: a one-line comment and an extern "C" __global__ function named by kernel_symbol, whose
// body calls the loop it binds to this transform.
std::string kernel_definition(const std::string& transform, int m, int n, const kernels::KernelId& id) {
  using kernels::KernelKind;
  const std::string type = storage_type(id.storage), layout = layout_value(id.layout);
  const int element_bytes = kernels::storage_bytes(id.storage);
  const std::string upper = id.layout == kernels::Layout::nchw ? "NCHW" : "NHWC";
  const std::string name = kernels::kernel_symbol(transform, id);
  std::string comment, bounds = "nova::kernels::kBlockThreads", params, body;
  switch (id.kind) {
    case KernelKind::filter:
      comment = "Filter transform U = G g G^T: w [K][C][kR][kR] fp32 -> U [kN*kN][K][C] " + type + ".";
      params = "const float* __restrict__ w, " + type + "* __restrict__ U, int K, int C";
      body = "filter_transform_tiles<Transform>(w, U, K, C)";
      break;
    case KernelKind::input:
      comment = "Input transform V = B^T d B: x " + upper + " " + type + " -> V " +
                (id.layout == kernels::Layout::nchw ? "[kN*kN][C][P] " : "[kN*kN][P][C] ") + type +
                "; pixels outside the image are zero.";
      params = "const " + type + "* __restrict__ x, " + type + "* __restrict__ V, nova::kernels::TileGrid grid";
      body = "input_transform_tiles<Transform, " + layout + ">(x, V, grid)";
      if (id.layout == kernels::Layout::nhwc && kernels::input_pairs_in_small_blocks(n, element_bytes))
        bounds = "NOVA_SMALL_PAIR_INPUT_BOUNDS(Transform::n, sizeof(" + type + "))";
      break;
    case KernelKind::input_tile_pairs:
      comment = "Input transform V = B^T d B, two tiles of an image row a thread: x NCHW " + type + " -> V [kN*kN][C][P] " +
                type + "; pixels outside the image are zero.";
      params = "const " + type + "* __restrict__ x, " + type + "* __restrict__ V, nova::kernels::TileGrid grid";
      body = "input_transform_tile_pairs<Transform>(x, V, grid)";
      break;
    case KernelKind::output:
    case KernelKind::output_m16:
    case KernelKind::output_tile_pairs: {
      const bool pairs = id.kind == KernelKind::output_tile_pairs;
      const std::string product = id.kind == KernelKind::output ? "float" : type;
      comment = std::string("Output transform y = A^T M A (+ bias, ReLU)") +
                (pairs ? ", two tiles of an image row a thread" : "") + ": M " +
                (id.layout == kernels::Layout::nchw ? "[kN*kN][K][P]" : "[kN*kN][P][K]") + " " +
                (id.kind == KernelKind::output ? "fp32" : type) + " -> y " + upper + " " + type +
                ", border tiles clipped.";
      params = "const " + product + "* __restrict__ M, " + type +
               "* __restrict__ y, const float* __restrict__ bias, int relu, nova::kernels::TileGrid grid";
      body = pairs ? "output_transform_tile_pairs<Transform>(M, y, bias, relu, grid)"
                   : "output_transform_tiles<Transform, " + layout + ">(M, y, bias, relu, grid)";
      if (id.layout == kernels::Layout::nchw && !pairs && kernels::staged_output_in_two_blocks(m, element_bytes))
        bounds = "NOVA_STAGED_OUTPUT_BOUNDS";
      break;
    }
    case KernelKind::fused_mma: {
      const int k_blocks = kernels::kFusedMmaVariant[id.variant].k_blocks;
      const bool is_chunked = kernels::kFusedMmaVariant[id.variant].chunked;
      const char* chunked = is_chunked ? "true" : "false";
      comment = "Fused convolution, mma.sync, " + upper + " " + type + ": " +
                (is_chunked ? std::string("chunked channels") : std::to_string(k_blocks) + " K block(s) a warp") + ".";
      bounds = "nova::kernels::kFusedThreads, nova::kernels::fused_launch_min_blocks(" + std::to_string(k_blocks) + ", " +
               chunked + ")";
      params = "nova::kernels::FusedConvArgs args";
      body = "fused_conv_tiles<Transform, " + type + ", " + layout + ", " + std::to_string(k_blocks) + ", " + chunked +
             ">(args)";
      break;
    }
    case KernelKind::fused_wgmma: {
      const std::string tiles = std::to_string(kernels::kFusedWgmmaTiles[id.variant]);
      comment = "Fused convolution, wgmma (sm_90a; an empty body elsewhere), " + upper + " " + type + ": " + tiles +
                " tiles a group.";
      bounds = "nova::kernels::kWgThreads, 1";
      params = std::string(kernels::fused_wg_tc_kernel(n, id.layout, kernels::kFusedWgmmaTiles[id.variant], id.storage)
                               ? "const NOVA_GRID_CONSTANT "
                               : "") +
               "nova::kernels::FusedConvArgs args, const NOVA_GRID_CONSTANT nova::kernels::WgTensorMap x_map";
      body = "fused_wg_conv_body<Transform, " + type + ", " + layout + ", " + tiles + ">(args, x_map)";
      break;
    }
    case KernelKind::fused_mfma: {
      const std::string groups = std::to_string(kernels::kFusedMfmaTileGroups[id.variant]);
      comment = "Fused convolution, MFMA (AMD gfx90a, gfx94x; an empty body elsewhere), " + upper + " " + type + ": " +
                groups + " group(s) of 16 tiles a block.";
      // HIP's second bound is waves a SIMD: 2, two 4-wave blocks a compute unit (fused_mfma_launch's LDS)
      bounds = "nova::kernels::kMfmaThreads, 2";
      params = "nova::kernels::FusedConvArgs args";
      body = "fused_mfma_conv_body<Transform, " + type + ", " + layout + ", " + groups + ">(args)";
      break;
    }
  }
  return "\n// " + comment + "\nextern \"C\" __global__ void __launch_bounds__(" + bounds + ")\n" +
         signature(name, params, " {") + "\n  nova::kernels::" + body + ";\n}\n";
}

// Whether the transform has the kernels of `group`, and kernel `id`.
bool has_group(const Source& source, kernels::KernelGroup group) {
  return group == kernels::KernelGroup::three_pass || emits_fused(source);
}
bool has_kernel(const Source& source, const kernels::KernelId& id) {
  const auto& tile = source.config.transform.tile;
  return has_group(source, kernels::kernel_group(id.kind)) && kernels::kernel_emitted(id, tile.m, tile.r);
}

// The kernels of the groups asked for, inside the transform's namespace (where `Transform` is its own).
std::string kernel_definitions(const Source& source, std::initializer_list<kernels::KernelGroup> groups) {
  const std::string& name = source.config.name;
  const auto& tile = source.config.transform.tile;
  std::string out = "namespace nova::generated::" + name + " {\n";
  for (const kernels::KernelGroup group : groups)
    for (int i = 0; i < kernels::kKernelsPerTransform; ++i) {
      const kernels::KernelId id = kernels::kernel_id(i);
      if (kernels::kernel_group(id.kind) == group && has_kernel(source, id))
        out += kernel_definition(name, tile.m, tile.n(), id);
    }
  return out;
}

}  // namespace

// The tiles the fused kernels take (nova/kernels/kernel_table.hpp).
bool emits_fused(const Source& source) {
  const auto& tile = source.config.transform.tile;
  return kernels::fused_tile_supported(tile.m, tile.n());
}

std::string emit_kernels(const Source& source) {
  const std::string& name = source.config.name;
  using kernels::KernelGroup;
  std::ostringstream out;
  out << banner(name + ": GPU filter, input and output transform kernels and the fused convolution.", {source},
                "//\n"
                "// HIP source: nvcc compiles it as CUDA (-x cu) through nova/kernels/hip_compat.h, clang as\n"
                "// HIP for AMD. The loops live once in nova/kernels/ (transform_kernels.hpp, fused_kernels.hpp,\n"
                "// fused_wgmma_kernels.hpp, fused_mfma_kernels.hpp); this file binds them to this transform,\n"
                "// names each kernel as nova/kernels/kernel_table.hpp does, and fills the transform's\n"
                "// GpuTransformEntry with them (launchers and layouts: nova/kernels/transform_registry_gpu.hpp).\n"
                "// A transform loaded at run time is compiled from the same definitions\n"
                "// (nova::codegen::runtime_source).\n")
      << "#include \"nova/kernels/transform_registry_gpu.hpp\"\n\n"
      << "#include \"" << transforms_file_name(name) << "\"\n\n"
      << kernel_definitions(source, {KernelGroup::three_pass, KernelGroup::fused})
      << "\n// What the transform's registry entry (registry.cpp) points at in GPU builds, by kernel_index.\n"
      << "extern const nova::kernels::GpuTransformEntry kGpuEntry;\n"
      << "const nova::kernels::GpuTransformEntry kGpuEntry = {{\n";
  for (int i = 0; i < kernels::kKernelsPerTransform; ++i) {
    const kernels::KernelId id = kernels::kernel_id(i);
    out << "    "
        << (has_kernel(source, id)
                ? "reinterpret_cast<const void*>(&" + kernels::kernel_symbol(name, id) + ")"
                : std::string("nullptr"))
        << ",\n";
  }
  out << "}};\n\n}  // namespace nova::generated::" << name << "\n";
  return out.str();
}

}  // namespace nova::codegen::detail

namespace nova::codegen {

RuntimeSource runtime_source(const Source& source, kernels::KernelGroup group) {
  const std::string& name = source.config.name;
  RuntimeSource out;
  out.header_name = detail::transforms_file_name(name);
  out.header = detail::emit_transforms_header(source, build_programs(source.config.transform));
  out.has_kernels = detail::has_group(source, group);
  out.kernels = std::string("// ") + name + ": the " +
                (group == kernels::KernelGroup::fused ? "fused convolution" : "3-pass transform") +
                " kernels, for a compiler at run time.\n\n" +
                (group == kernels::KernelGroup::fused
                     ? "#include \"nova/kernels/fused_mfma_kernels.hpp\"\n#include \"nova/kernels/fused_wgmma_kernels.hpp\"\n"
                     : "#include \"nova/kernels/transform_kernels.hpp\"\n") +
                "#include \"" + out.header_name + "\"\n\n" + detail::kernel_definitions(source, {group}) +
                "}  // namespace nova::generated::" + name + "\n";
  return out;
}

}  // namespace nova::codegen
