// The transformed filters of one handle. Keyed by everything their values depend on; bounded in
// bytes, least recently used out first. Safe to use from several threads at once: a filter a
// forward pass holds stays alive until that pass ends, even if it is evicted meanwhile.
#pragma once

#include "backend.hpp"

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>

namespace nova::runtime {

class FilterCache {
 public:
  struct Key {
    const float* weights;
    uint64_t version;
    const TransformEntry* transform;
    int64_t k, c;
    nova_dtype_t dtype;
    int layout;  // Backend::filter_layout: the element order
    friend bool operator==(const Key&, const Key&) = default;
  };
  using Filter = std::shared_ptr<const Buffer>;

  static constexpr size_t kDefaultLimitBytes = size_t{1} << 30;

  // The cached filter of `key` (now the most recently used), or null. No allocation on a hit.
  Filter find(const Key& key);
  // Caches a filter of `bytes` bytes for `key`, unless it alone exceeds the limit; a new version of
  // the same weights replaces every filter of an older one, while filters of the same version in
  // other element orders, dtypes or transforms stay. Two threads that both missed a key both
  // transform it; the second insert replaces the first.
  void insert(const Key& key, Filter filter, size_t bytes);
  void invalidate(const float* weights);  // every entry of these weights
  void set_limit(size_t bytes);           // evicts at once down to the new limit
  size_t bytes() const;

 private:
  struct Entry {
    Key key;
    Filter filter;
    size_t bytes;
  };
  // Both with mutex_ held.
  void evict_beyond_limit();
  void erase_where(const std::function<bool(const Key&)>& matches);

  mutable std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  size_t bytes_ = 0, limit_ = kDefaultLimitBytes;
};

}  // namespace nova::runtime
