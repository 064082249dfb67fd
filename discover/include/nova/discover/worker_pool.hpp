// A fixed set of threads that runs the iterations of an index loop in parallel. Each iteration
// writes only its own result slot and all random numbers are drawn before the loop, so results
// never depend on the number of threads.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace nova::discover {

class WorkerPool {
 public:
  // `threads` counts the calling thread, which always takes part: 1 means no extra threads.
  // Throws exact::InputError, having stopped the threads it started, when the system refuses one.
  explicit WorkerPool(unsigned threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

  // Calls body(i) for every i < count and returns when all calls are done. The first exception a
  // call throws is rethrown here.
  void for_each_index(std::size_t count, const std::function<void(std::size_t)>& body);

  static unsigned hardware_threads();

 private:
  void worker_loop();
  void stop();  // ends and joins every worker
  void run_share();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable job_ready_, job_done_;
  const std::function<void(std::size_t)>* body_ = nullptr;
  std::size_t count_ = 0, chunk_ = 1, next_ = 0;
  unsigned busy_workers_ = 0;
  std::size_t job_id_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
};

}  // namespace nova::discover
