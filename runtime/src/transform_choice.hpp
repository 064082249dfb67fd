// Which transform and which path (3-pass or fused) a descriptor runs: a name as given, or "auto"
// (the best-ranked) or "tuned" (the fastest of a few, timed once per shape on scratch memory).
#pragma once

#include "backend.hpp"

#include <mutex>
#include <vector>

namespace nova::runtime {

// The choices "auto" and "tuned" made per problem shape: choosing again would give the same answer
// but rank every transform (or time the candidates) on every call. Safe to share between threads;
// bounded (the oldest choice goes first).
class ChoiceMemory {
 public:
  struct Choice {
    ConvShape shape;  // as the descriptor gave it
    bool tuned;
    const TransformEntry* transform;
    nova_algo_t algorithm;  // the path it runs: THREE_PASS or FUSED
  };
  static constexpr std::size_t kMaxChoices = 1024;

  bool find(const ConvShape& shape, bool tuned, Choice& out) const;
  void remember(const Choice& choice);

 private:
  mutable std::mutex mutex_;
  std::vector<Choice> choices_;
};

// Validates `desc` and resolves its transform and path: `shape.algorithm` becomes THREE_PASS or
// FUSED, decided once, so that the workspace, the filter layout and the forward pass agree.
nova_status_t prepare(Backend& backend, ChoiceMemory& memory, const nova_conv_desc_t* desc, ConvShape& shape,
                      const TransformEntry*& transform);

}  // namespace nova::runtime
