#include "transform_choice.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace nova::runtime {
namespace {

// "tuned" times the best-ranked transform of each of this many tile sizes on the 3-pass path
// (within a tile size the transforms move the same bytes, and "auto"'s accuracy order is kept),
// and the best-ranked one of the fused path.
constexpr std::size_t kTunedCandidates = 3;

// Best time of a few forward passes of `t` on zero-filled scratch tensors (no pass depends on the
// values), including the wait for the device.
nova_status_t time_forward(Backend& backend, const ConvShape& s, const TransformEntry& t, double& best_ms) {
  const auto io_bytes = static_cast<size_t>(dtype_traits(s.dtype).bytes);
  Buffer x{nullptr, std::free}, y{nullptr, std::free}, w{nullptr, std::free}, ws{nullptr, std::free},
      filter{nullptr, std::free}, scratch{nullptr, std::free};
  const size_t x_bytes = static_cast<size_t>(s.input_elements()) * io_bytes,
               w_bytes = static_cast<size_t>(s.filter_elements()) * sizeof(float);
  for (const nova_status_t st :
       {backend.allocate(x_bytes, x), backend.allocate(static_cast<size_t>(s.output_elements()) * io_bytes, y),
        backend.allocate(w_bytes, w), backend.allocate(backend.workspace_bytes(s, t), ws),
        backend.allocate(backend.filter_bytes(s, t), filter), backend.allocate(backend.filter_scratch_bytes(s, t), scratch)})
    if (st != NOVA_STATUS_SUCCESS) return st;
  for (const nova_status_t st : {backend.zero(x.get(), x_bytes), backend.zero(w.get(), w_bytes),
                                 backend.transform_filter(s, t, static_cast<const float*>(w.get()), filter.get(),
                                                          scratch.get())})
    if (st != NOVA_STATUS_SUCCESS) return st;
  best_ms = HUGE_VAL;
  for (int rep = 0; rep < 4; ++rep) {  // the first is a warm-up
    const auto start = std::chrono::steady_clock::now();
    if (const nova_status_t st = backend.forward(s, t, x.get(), filter.get(), nullptr, 0, y.get(), ws.get(), nullptr);
        st != NOVA_STATUS_SUCCESS)
      return st;
    if (const nova_status_t st = backend.synchronize(); st != NOVA_STATUS_SUCCESS) return st;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (rep > 0) best_ms = std::min(best_ms, ms);
  }
  return NOVA_STATUS_SUCCESS;
}

// What "auto" ranks for `s` on its path: with the fused kernel, only the transforms it can run.
// AUTO's path is decided once here, not again for every transform ranked.
CostModel path_cost(const Backend& backend, const ConvShape& s) {
  ConvShape on_path = s;
  on_path.algorithm = backend.fused_path(s) ? NOVA_ALGO_FUSED : NOVA_ALGO_THREE_PASS;
  return [&backend, on_path](const TransformEntry& t) {
    return on_path.algorithm == NOVA_ALGO_FUSED && !backend.can_fuse(on_path, t) ? PathCost{HUGE_VAL, 0}
                                                                                 : backend.forward_cost(on_path, t);
  };
}

// "tuned": the fastest of the candidates for this shape. With NOVA_ALGO_AUTO the candidates of
// both paths compete, and `s.algorithm` becomes the winner's path. `out` is "auto"'s choice on
// entry and stays it when there is nothing to time.
nova_status_t tuned_transform(Backend& backend, ConvShape& s, const TransformEntry*& out) {
  struct Candidate {
    ConvShape shape;  // with the path it runs
    const TransformEntry* transform;
  };
  std::vector<Candidate> candidates;
  const auto add_path = [&](nova_algo_t algorithm, std::size_t most) {
    ConvShape path = s;
    path.algorithm = algorithm;
    const CostModel cost = path_cost(backend, path);
    std::size_t taken = 0;
    for (const TransformEntry* t : ranked_transforms(path, cost)) {
      const bool tile_taken = std::any_of(candidates.begin(), candidates.end(), [&](const Candidate& c) {
        return c.shape.algorithm == algorithm && c.transform->m == t->m;
      });
      if (cost(*t).volume != HUGE_VAL && !tile_taken && taken < most && check_tiled_sizes(path, *t) == NOVA_STATUS_SUCCESS)
        candidates.push_back({path, t}), ++taken;
    }
  };
  if (s.algorithm == NOVA_ALGO_AUTO) {
    add_path(NOVA_ALGO_THREE_PASS, kTunedCandidates);
    add_path(NOVA_ALGO_FUSED, 1);
  } else {
    add_path(s.algorithm, kTunedCandidates);
  }
  double best_ms = HUGE_VAL;
  const Candidate* best = nullptr;
  for (const Candidate& c : candidates) {
    double ms = 0;
    if (candidates.size() > 1)
      if (const nova_status_t st = time_forward(backend, c.shape, *c.transform, ms); st != NOVA_STATUS_SUCCESS) return st;
    if (ms < best_ms) best_ms = ms, best = &c;
  }
  if (best) out = best->transform, s.algorithm = best->shape.algorithm;
  return NOVA_STATUS_SUCCESS;
}

}  // namespace

bool ChoiceMemory::find(const ConvShape& shape, bool tuned, Choice& out) const {
  std::lock_guard lock(mutex_);
  for (const Choice& c : choices_)
    if (c.tuned == tuned && same_problem(c.shape, shape)) {
      out = c;
      return true;
    }
  return false;
}

void ChoiceMemory::remember(const Choice& choice) {
  std::lock_guard lock(mutex_);
  const bool known = std::any_of(choices_.begin(), choices_.end(), [&](const Choice& c) {
    return c.tuned == choice.tuned && same_problem(c.shape, choice.shape);  // another thread chose it meanwhile
  });
  if (known) return;
  if (choices_.size() == kMaxChoices) choices_.erase(choices_.begin());
  choices_.push_back(choice);
}

nova_status_t prepare(Backend& backend, ChoiceMemory& memory, const nova_conv_desc_t* desc, ConvShape& shape,
                      const TransformEntry*& t) {
  if (const nova_status_t st = validate_descriptor(desc, shape); st != NOVA_STATUS_SUCCESS) return st;
  const bool tuned = desc->transform && std::strcmp(desc->transform, "tuned") == 0;
  const bool chosen = tuned || !desc->transform || std::strcmp(desc->transform, "auto") == 0;
  if (ChoiceMemory::Choice known; chosen && memory.find(shape, tuned, known)) {
    t = known.transform;
    shape.algorithm = known.algorithm;
    return NOVA_STATUS_SUCCESS;
  }
  const ConvShape asked = shape;
  if (const nova_status_t st = resolve_transform(desc, shape, t, path_cost(backend, shape)); st != NOVA_STATUS_SUCCESS)
    return st;
  if (tuned)
    if (const nova_status_t st = tuned_transform(backend, shape, t); st != NOVA_STATUS_SUCCESS) return st;
  if (shape.algorithm == NOVA_ALGO_FUSED && !backend.can_fuse(shape, *t)) return NOVA_STATUS_NOT_SUPPORTED;
  shape.algorithm = backend.fuses(shape, *t) ? NOVA_ALGO_FUSED : NOVA_ALGO_THREE_PASS;
  if (chosen) memory.remember({asked, tuned, t, shape.algorithm});
  return NOVA_STATUS_SUCCESS;
}

}  // namespace nova::runtime
