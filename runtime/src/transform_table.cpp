#include "transform_table.hpp"

#include "nova/kernels/kernel_table.hpp"

#include <deque>
#include <mutex>
#include <shared_mutex>

namespace nova::runtime {
namespace {

// A loaded transform: its source, and the entry that points into it.
struct Loaded {
  LoadedTransform source;
  TransformEntry entry{};
};

struct Table {
  std::shared_mutex mutex;
  std::deque<Loaded> loaded;  // a deque: entries never move
};

Table& table() {
  static Table t;
  return t;
}

std::span<const TransformEntry> generated() { return kernels::transform_registry(); }

bool is_generated(const TransformEntry& t) {
  const auto all = generated();
  return !all.empty() && &t >= all.data() && &t < all.data() + all.size();
}

// The interpreter's fixed buffers: tiles up to 16 x 16, and 64 inputs and temps a program.
constexpr int kMaxTileSide = 16, kMaxValues = 64;

// A program the interpreter can run without reading or writing out of bounds.
bool valid(const StraightLineProgram& p, int inputs, int outputs) {
  if (p.inputs != inputs || p.outputs != outputs || p.temps < 0 || p.inputs + p.temps > kMaxValues) return false;
  for (const ProgramStatement& st : p.statements) {
    if (st.index < 0 || st.index >= (st.to_output ? p.outputs : p.temps)) return false;
    for (const ProgramTerm& term : st.terms)
      if (term.operand < 0 || term.operand >= p.inputs + p.temps) return false;
  }
  return true;
}

}  // namespace

nova_transform_info_t transform_info(const TransformEntry& t) { return {t.name, t.m, t.r, t.points, t.amp2d}; }

std::vector<const TransformEntry*> all_transforms() {
  std::vector<const TransformEntry*> out;
  for (const TransformEntry& t : generated()) out.push_back(&t);
  Table& tab = table();
  std::shared_lock lock(tab.mutex);
  for (const Loaded& l : tab.loaded) out.push_back(&l.entry);
  return out;
}

const TransformEntry* find_transform(std::string_view name) {
  if (const TransformEntry* t = kernels::find_transform(name)) return t;
  Table& tab = table();
  std::shared_lock lock(tab.mutex);
  for (const Loaded& l : tab.loaded)
    if (l.source.name == name) return &l.entry;
  return nullptr;
}

int transform_count() {
  Table& tab = table();
  std::shared_lock lock(tab.mutex);
  return static_cast<int>(generated().size() + tab.loaded.size());
}

const TransformEntry* transform_at(int position) {
  if (position < 0) return nullptr;
  const auto built_in = static_cast<int>(generated().size());
  if (position < built_in) return &generated()[static_cast<size_t>(position)];
  Table& tab = table();
  std::shared_lock lock(tab.mutex);
  const auto at = static_cast<size_t>(position - built_in);
  return at < tab.loaded.size() ? &tab.loaded[at].entry : nullptr;
}

int transform_position(const TransformEntry& t) {
  if (is_generated(t)) return static_cast<int>(&t - generated().data());
  Table& tab = table();
  std::shared_lock lock(tab.mutex);
  for (size_t i = 0; i < tab.loaded.size(); ++i)
    if (&tab.loaded[i].entry == &t) return static_cast<int>(generated().size() + i);
  return -1;
}

const LoadedTransform* loaded_source(const TransformEntry& t) {
  if (is_generated(t)) return nullptr;
  Table& tab = table();
  std::shared_lock lock(tab.mutex);
  for (const Loaded& l : tab.loaded)
    if (&l.entry == &t) return &l.source;
  return nullptr;
}

nova_status_t register_transform(LoadedTransform transform, nova_transform_info_t* info) {
  if (transform.name.empty() || transform.m < 1 || transform.r < 1) return NOVA_STATUS_INVALID_ARGUMENT;
  const int n = transform.m + transform.r - 1;
  if (n > kMaxTileSide || !valid(transform.input, n, n) || !valid(transform.filter, transform.r, n) ||
      !valid(transform.output, n, transform.m))
    return NOVA_STATUS_INVALID_ARGUMENT;
  if (kernels::find_transform(transform.name)) return NOVA_STATUS_TRANSFORM_EXISTS;
  Table& tab = table();
  std::unique_lock lock(tab.mutex);
  for (const Loaded& l : tab.loaded)
    if (l.source.name == transform.name) {
      if (l.source.content_hash != transform.content_hash) return NOVA_STATUS_TRANSFORM_EXISTS;
      if (info) *info = transform_info(l.entry);
      return NOVA_STATUS_SUCCESS;
    }
  Loaded& l = tab.loaded.emplace_back();
  l.source = std::move(transform);
  const LoadedTransform& s = l.source;
  l.entry = TransformEntry{.name = s.name.c_str(),
                           .m = s.m,
                           .r = s.r,
                           .n = s.m + s.r - 1,
                           .points = s.points.c_str(),
                           .scaling = s.scaling.c_str(),
                           .input_2d_f64 = nullptr,
                           .filter_2d_f64 = nullptr,
                           .output_2d_f64 = nullptr,
                           .input_2d_f32 = nullptr,
                           .filter_2d_f32 = nullptr,
                           .output_2d_f32 = nullptr,
                           .AT = s.AT.data(),
                           .G = s.G.data(),
                           .BT = s.BT.data(),
                           .kronecker_terms_fp16 = kernels::fused_wg_kronecker_tables(s.m + s.r - 1, s.BT.data(), kernels::Storage::f16).terms,
                           .kronecker_terms_bf16 = kernels::fused_wg_kronecker_tables(s.m + s.r - 1, s.BT.data(), kernels::Storage::bf16).terms,
                           .input_ops = s.input_ops,
                           .output_ops = s.output_ops,
                           .amp2d = s.amp2d,
                           .predicted_error_fp16 = s.predicted_error_fp16,
                           .gpu = nullptr};
  if (info) *info = transform_info(l.entry);
  return NOVA_STATUS_SUCCESS;
}

void run_program(const StraightLineProgram& p, const float* x, int x_stride, float* y, int y_stride) {
  // Inputs first, so that y may alias x; temps after them.
  float values[kMaxValues];
  float* const temps = values + p.inputs;
  for (int i = 0; i < p.inputs; ++i) values[i] = x[i * x_stride];
  for (const ProgramStatement& st : p.statements) {
    float sum = 0.0f;
    bool first = true;
    for (const ProgramTerm& term : st.terms) {
      const float v = term.coefficient * values[term.operand];
      sum = first ? v : sum + v;
      first = false;
    }
    const float value = st.factor == 1.0f ? sum : st.factor * sum;
    if (st.to_output) y[st.index * y_stride] = value;
    else temps[st.index] = value;
  }
}

namespace {

// The 2D transform of a tile: the 1D program down every column of `in` (rows_in x cols) into
// `out`, then along every row, in place.
void run_2d(const StraightLineProgram& p, const float* in, float* out) {
  const int a = p.inputs, b = p.outputs;
  float column_pass[kMaxTileSide * kMaxTileSide];  // b x a
  for (int j = 0; j < a; ++j) run_program(p, in + j, a, column_pass + j, a);
  for (int i = 0; i < b; ++i) run_program(p, column_pass + i * a, 1, out + i * b, 1);
}

}  // namespace

void TileTransforms::input(const float* d, float* v) const {
  if (loaded_) run_2d(loaded_->input, d, v);
  else t_.input_2d_f32(d, v);
}

void TileTransforms::filter(const float* g, float* u) const {
  if (loaded_) run_2d(loaded_->filter, g, u);
  else t_.filter_2d_f32(g, u);
}

void TileTransforms::output(const float* mm, float* y) const {
  if (loaded_) run_2d(loaded_->output, mm, y);
  else t_.output_2d_f32(mm, y);
}

}  // namespace nova::runtime
