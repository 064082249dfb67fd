#include "nova/discover/worker_pool.hpp"

#include "nova/exact/rational.hpp"  // InputError

#include <algorithm>
#include <string>
#include <system_error>
#include <utility>

namespace nova::discover {

WorkerPool::WorkerPool(unsigned threads) {
  try {
    for (unsigned i = 1; i < std::max(threads, 1u); ++i) workers_.emplace_back([this] { worker_loop(); });
  } catch (const std::system_error& e) {
    // No destructor runs for a half-built pool: stop the threads that did start before reporting.
    const std::size_t started = workers_.size();
    stop();
    throw exact::InputError("cannot start " + std::to_string(threads - 1) + " worker threads (" +
                            std::to_string(started) + " started): " + e.what() + "; use fewer --threads");
  }
}

WorkerPool::~WorkerPool() { stop(); }

void WorkerPool::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  job_ready_.notify_all();
  for (auto& w : workers_) w.join();
  workers_.clear();
}

unsigned WorkerPool::hardware_threads() { return std::max(std::thread::hardware_concurrency(), 1u); }

void WorkerPool::run_share() {
  for (;;) {
    std::size_t begin, end;
    {
      std::lock_guard lock(mutex_);
      if (next_ >= count_ || error_) return;
      begin = next_;
      end = std::min(count_, begin + chunk_);
      next_ = end;
    }
    try {
      for (std::size_t i = begin; i < end; ++i) (*body_)(i);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
  }
}

void WorkerPool::worker_loop() {
  std::size_t seen_job = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      job_ready_.wait(lock, [&] { return stopping_ || job_id_ != seen_job; });
      if (stopping_) return;
      seen_job = job_id_;
    }
    run_share();
    {
      std::lock_guard lock(mutex_);
      --busy_workers_;
    }
    job_done_.notify_one();
  }
}

void WorkerPool::for_each_index(std::size_t count, const std::function<void(std::size_t)>& body) {
  if (workers_.empty() || count < 2) {
    for (std::size_t i = 0; i < count; ++i) body(i);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    body_ = &body;
    count_ = count;
    next_ = 0;
    // Several chunks per thread balance uneven iterations; chunks keep the lock out of the way.
    chunk_ = std::max<std::size_t>(1, count / (8 * size()));
    busy_workers_ = static_cast<unsigned>(workers_.size());
    error_ = nullptr;
    ++job_id_;
  }
  job_ready_.notify_all();
  run_share();
  std::unique_lock lock(mutex_);
  job_done_.wait(lock, [&] { return busy_workers_ == 0; });
  body_ = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace nova::discover
