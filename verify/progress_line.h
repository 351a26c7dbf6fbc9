// Rank 0's progress line for the multi-minute runs of verify/ (verify and
// derive): at most every 10 s, how many rules are done, the rate, time left.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace superopt::verify {

class ProgressLine {
 public:
  // Prints "HEAD: done/total rules VERB DETAIL, R rules/s, about T s left".
  ProgressLine(std::string head, std::string verb, int64_t total)
      : head_(std::move(head)), verb_(std::move(verb)), total_(total) {}

  void update(int64_t done, const std::string& detail) {
    if (seconds_since(said_) < 10) return;
    said_ = Clock::now();
    const double elapsed = seconds_since(start_);
    std::fprintf(stderr, "%s: %lld/%lld rules %s%s, %.0f rules/s, about %.0f s left\n", head_.c_str(),
                 static_cast<long long>(done), static_cast<long long>(total_), verb_.c_str(), detail.c_str(),
                 done / std::max(elapsed, 1e-9),
                 elapsed * double(total_ - std::min(done, total_)) / double(done));
  }

 private:
  using Clock = std::chrono::steady_clock;
  static double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  }
  const std::string head_, verb_;
  const int64_t total_;
  const Clock::time_point start_ = Clock::now();
  Clock::time_point said_ = start_;
};

}  // namespace superopt::verify
