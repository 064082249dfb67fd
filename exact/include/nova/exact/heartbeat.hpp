// A line on stderr while a long exact computation runs, so that no tool sits silent: exact
// arithmetic on long rationals (a point such as 123456789/987654321 on a large tile) can take
// minutes, and its cost is not known up front. Ctrl-C stops the tool as usual.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace nova::exact {

class Heartbeat {
 public:
  // Prints "<tool>: still <activity> (N s; Ctrl-C stops)" after `first`, then every `every`, until
  // destroyed. A system that refuses the thread gets no heartbeat, never an error.
  Heartbeat(std::string tool, std::string activity, std::chrono::milliseconds first = std::chrono::seconds(2),
            std::chrono::milliseconds every = std::chrono::seconds(5));
  ~Heartbeat();
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

 private:
  void beat();

  std::string tool_, activity_;
  std::chrono::milliseconds first_, every_;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace nova::exact
