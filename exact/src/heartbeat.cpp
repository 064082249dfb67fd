#include "nova/exact/heartbeat.hpp"

#include <cstdio>
#include <system_error>

namespace nova::exact {

Heartbeat::Heartbeat(std::string tool, std::string activity, std::chrono::milliseconds first,
                     std::chrono::milliseconds every)
    : tool_(std::move(tool)), activity_(std::move(activity)), first_(first), every_(every) {
  try {
    thread_ = std::thread([this] { beat(); });
  } catch (const std::system_error&) {
  }
}

Heartbeat::~Heartbeat() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void Heartbeat::beat() {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock lock(mutex_);
  for (auto wait = first_; !stop_.wait_for(lock, wait, [this] { return stopping_; }); wait = every_) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "%s: still %s (%.0f s; Ctrl-C stops)\n", tool_.c_str(), activity_.c_str(), seconds);
  }
}

}  // namespace nova::exact
