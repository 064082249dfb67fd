// nova/jit.h: read and verify (nova-codegen's load_source: the exact core), generate (its emitters),
// register with libnova_runtime (nova/transform_registration.hpp), compile with NVRTC on demand.
#include "nova/jit.h"

#include "compile_cache.hpp"
#include "nvrtc_compiler.hpp"

#include "nova/codegen/codegen.hpp"
#include "nova/codegen/float_literal.hpp"
#include "nova/exact/report.hpp"
#include "nova/transform_registration.hpp"

#include <array>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>

namespace nova::jit {
namespace {

thread_local std::string last_error;

nova_status_t fail(nova_status_t status, std::string why) {
  last_error = std::move(why);
  return status;
}

// One cache for the process, opened at the first compile.
CompileCache& cache() {
  static CompileCache c(CompileCache::default_dir());
  return c;
}

// The GPU sources of one loaded transform: [0] the 3-pass kernels, [1] the fused ones.
struct Sources {
  std::array<codegen::RuntimeSource, 2> groups;
};

std::mutex loaded_mutex;
std::map<std::string, std::shared_ptr<const Sources>, std::less<>> loaded;  // by transform name

runtime::StraightLineProgram to_program(const codegen::LinearProgram& p) {
  runtime::StraightLineProgram out;
  out.inputs = static_cast<int>(p.cols);
  out.outputs = static_cast<int>(p.rows);
  out.temps = static_cast<int>(p.temps.size());
  for (const codegen::Statement& s : p.statements) {
    runtime::ProgramStatement st{s.target == codegen::Statement::Target::output, s.index,
                                 codegen::round_to_float(s.factor), {}};
    for (const codegen::Term& t : s.terms)
      st.terms.push_back({t.operand.kind == codegen::Operand::Kind::input ? t.operand.index : out.inputs + t.operand.index,
                          codegen::round_to_float(t.coefficient)});
    out.statements.push_back(std::move(st));
  }
  return out;
}

CompileResult compile(const Sources& sources, std::string_view arch, bool fused) {
  CompileResult r = compile_nvrtc(sources.groups[fused ? 1 : 0], arch, cache());
  if (r.image.empty()) last_error = r.error;
  return r;
}

}  // namespace
}  // namespace nova::jit

using namespace nova;

nova_status_t nova_transform_load(const char* json_path, nova_transform_info_t* info) {
  jit::last_error.clear();
  if (!json_path) return jit::fail(NOVA_STATUS_INVALID_ARGUMENT, "json_path is null");
  if (!std::ifstream(json_path).good())
    return jit::fail(NOVA_STATUS_FILE_ERROR, std::string("cannot open ") + json_path + " for reading");
  try {
    const codegen::Source source = codegen::load_source(json_path);  // parses and re-verifies exactly
    const exact::Config& c = source.config;
    auto sources = std::make_shared<jit::Sources>();
    sources->groups = {codegen::runtime_source(source, kernels::KernelGroup::three_pass),
                       codegen::runtime_source(source, kernels::KernelGroup::fused)};
    const codegen::TransformPrograms programs = codegen::build_programs(c.transform);
    const std::vector<codegen::TransformStats> stats = codegen::transform_stats(c, programs);  // input, filter, output

    runtime::LoadedTransform t;
    t.name = c.name;
    t.points = exact::format_points(c.transform.points());
    t.scaling = exact::scaling_name(c.transform.scaling);
    t.m = c.transform.tile.m;
    t.r = c.transform.tile.r;
    t.AT = codegen::row_major_doubles(c.transform.AT);
    t.G = codegen::row_major_doubles(c.transform.G);
    t.BT = codegen::row_major_doubles(c.transform.BT);
    t.input_ops = stats[0].ops_2d.total();
    t.output_ops = stats[2].ops_2d.total();
    t.amp2d = c.metrics.amp2d;
    t.predicted_error_fp16 = c.metrics.predicted_error_fp16;
    t.input = jit::to_program(programs.input);
    t.filter = jit::to_program(programs.filter);
    t.output = jit::to_program(programs.output);
    t.content_hash = source.sha256;
    t.has_fused_kernels = sources->groups[1].has_kernels;
    t.compile = [sources](std::string_view arch, bool fused) { return jit::compile(*sources, arch, fused).image; };

    const std::lock_guard lock(jit::loaded_mutex);
    const nova_status_t st = runtime::register_transform(std::move(t), info);
    if (st == NOVA_STATUS_TRANSFORM_EXISTS)
      return jit::fail(st, "a transform named '" + c.name + "' is already " +
                               (jit::loaded.count(c.name) ? "loaded from a file with other content"
                                                          : "built into libnova_runtime"));
    if (st != NOVA_STATUS_SUCCESS) return jit::fail(st, "libnova_runtime refused '" + c.name + "'");
    jit::loaded.try_emplace(c.name, std::move(sources));
    return NOVA_STATUS_SUCCESS;
  } catch (const codegen::VerificationError& e) {
    return jit::fail(NOVA_STATUS_INVALID_CONFIG, e.what());
  } catch (const exact::InputError& e) {
    return jit::fail(NOVA_STATUS_INVALID_CONFIG, e.what());
  } catch (const std::bad_alloc&) {
    return jit::fail(NOVA_STATUS_ALLOCATION_FAILED, "out of memory");
  } catch (const std::exception& e) {
    return jit::fail(NOVA_STATUS_INVALID_CONFIG, e.what());
  }
}

nova_status_t nova_transform_compile(const char* name, const char* arch, nova_compile_report_t* report) {
  jit::last_error.clear();
  if (!name || !arch || !*arch) return jit::fail(NOVA_STATUS_INVALID_ARGUMENT, "name or arch is null or empty");
  std::shared_ptr<const jit::Sources> sources;
  {
    const std::lock_guard lock(jit::loaded_mutex);
    const auto it = jit::loaded.find(std::string_view(name));
    if (it == jit::loaded.end())
      return jit::fail(NOVA_STATUS_UNKNOWN_TRANSFORM, std::string("no transform named '") + name +
                                                          "' was loaded by nova_transform_load");
    sources = it->second;
  }
  nova_compile_report_t r{0, 1, 0};
  for (const bool fused : {false, true}) {
    if (!sources->groups[fused ? 1 : 0].has_kernels) continue;
    const jit::CompileResult c = jit::compile(*sources, arch, fused);
    if (c.image.empty()) return NOVA_STATUS_COMPILE_FAILED;
    r.milliseconds += c.ms;
    r.from_cache &= c.cached ? 1 : 0;
    r.image_bytes += c.image.size();
  }
  if (report) *report = r;
  return NOVA_STATUS_SUCCESS;
}

const char* nova_jit_last_error(void) { return jit::last_error.c_str(); }
