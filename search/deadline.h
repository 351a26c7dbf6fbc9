// When a search or a check stops: a time point, or earlier when a stop flag is
// set from another thread (SearchOptions::stop_requested: Ctrl-C in Python).
#pragma once

#include <atomic>
#include <chrono>

namespace superopt::search {

// A stop requested through `stop`; null: never.
inline bool stop_requested(const std::atomic<bool>* stop) {
  return stop != nullptr && stop->load(std::memory_order_relaxed);
}

struct Deadline {
  std::chrono::steady_clock::time_point at = std::chrono::steady_clock::time_point::max();
  const std::atomic<bool>* stop = nullptr;
  // Made from a time point alone (implicitly), or with a stop flag.
  Deadline(std::chrono::steady_clock::time_point at = std::chrono::steady_clock::time_point::max(),
           const std::atomic<bool>* stop = nullptr)
      : at(at), stop(stop) {}
  static Deadline max() { return {}; }
  bool passed() const { return std::chrono::steady_clock::now() >= at || stop_requested(stop); }
};

}  // namespace superopt::search
