#include "filter_cache.hpp"

#include <algorithm>

namespace nova::runtime {

nova_status_t FilterCache::get(const Key& key, const Make& make, Filter& out) {
  {
    std::lock_guard lock(mutex_);
    const auto hit = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == key; });
    if (hit != entries_.end()) {
      entries_.splice(entries_.begin(), entries_, hit);
      out = hit->filter;
      return NOVA_STATUS_SUCCESS;
    }
  }
  // Transformed without the lock: other threads' hits need not wait for it. Two threads missing
  // the same key both transform; the second to finish keeps the first's entry.
  Buffer made{nullptr, std::free};
  size_t bytes = 0;
  if (const nova_status_t st = make(made, bytes); st != NOVA_STATUS_SUCCESS) return st;
  out = std::make_shared<const Buffer>(std::move(made));
  std::lock_guard lock(mutex_);
  erase_where([&](const Key& k) { return k.weights == key.weights && k.transform == key.transform; });
  if (bytes <= limit_) {
    entries_.push_front({key, out, bytes});
    bytes_ += bytes;
    evict_beyond_limit();
  }
  return NOVA_STATUS_SUCCESS;
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
