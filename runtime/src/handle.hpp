// A handle: one backend and what it remembers between calls. Every part is safe to use from
// several threads at once (runtime.h promises it): the caches lock themselves, and the handle's own
// workspace serves one call at a time.
#pragma once

#include "backend.hpp"
#include "filter_cache.hpp"
#include "transform_choice.hpp"

#include <cstdlib>
#include <memory>
#include <mutex>

struct nova_handle {
  std::unique_ptr<nova::runtime::Backend> backend;
  nova::runtime::FilterCache filters;
  nova::runtime::ChoiceMemory choices;
  // The workspace of calls that bring none; workspace_mutex is held for the whole call using it.
  std::mutex workspace_mutex;
  nova::runtime::Buffer workspace{nullptr, std::free};
  size_t workspace_bytes = 0;
};
