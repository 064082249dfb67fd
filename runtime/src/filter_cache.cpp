#include "filter_cache.hpp"

#include <algorithm>

namespace nova::runtime {

FilterCache::Filter FilterCache::find(const Key& key) {
  std::lock_guard lock(mutex_);
  const auto hit = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == key; });
  if (hit == entries_.end()) return nullptr;
  entries_.splice(entries_.begin(), entries_, hit);
  return hit->filter;
}

void FilterCache::insert(const Key& key, Filter filter, size_t bytes) {
  std::lock_guard lock(mutex_);
  // An older version of these weights is stale in every element order and dtype; the filters of
  // this version for other paths, layouts or dtypes stay (a model may run both layouts).
  erase_where([&](const Key& k) { return k.weights == key.weights && (k.version != key.version || k == key); });
  if (bytes > limit_) return;
  entries_.push_front({key, std::move(filter), bytes});
  bytes_ += bytes;
  evict_beyond_limit();
}

void FilterCache::invalidate(const float* weights) {
  std::lock_guard lock(mutex_);
  erase_where([&](const Key& k) { return k.weights == weights; });
}

void FilterCache::erase_where(const std::function<bool(const Key&)>& matches) {
  std::erase_if(entries_, [&](const Entry& e) {
    if (matches(e.key)) bytes_ -= e.bytes;
    return matches(e.key);
  });
}

void FilterCache::set_limit(size_t bytes) {
  std::lock_guard lock(mutex_);
  limit_ = bytes;
  evict_beyond_limit();
}

size_t FilterCache::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

void FilterCache::evict_beyond_limit() {
  while (bytes_ > limit_ && !entries_.empty()) {
    bytes_ -= entries_.back().bytes;
    entries_.pop_back();
  }
}

}  // namespace nova::runtime
