// Rate and time-left lines for every phase of `superopt enumerate`.
#include "enum/progress.h"

#include <algorithm>
#include <cstdio>

namespace superopt::enumeration {
namespace {

// True at most once a second (and never before the first second).
bool due(Clock::time_point& last) {
  Clock::time_point now = Clock::now();
  if (now - last < std::chrono::seconds(1)) return false;
  last = now;
  return true;
}

}  // namespace

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

EnumerationProgress::EnumerationProgress(int64_t units, bool enabled)
    : units_(units), enabled_(enabled), start_(Clock::now()), last_(start_) {}

void EnumerationProgress::operator()(uint64_t graphs, int64_t units_given) {
  if (!enabled_ || !due(last_)) return;
  double elapsed = seconds_since(start_);
  double left = units_given > 0 ? elapsed * double(units_ - units_given) / double(units_given) : 0;
  std::fprintf(stderr, "enumerate: %llu graphs, %.0f graphs/s, %lld/%lld work units, about %.0f s left\n",
               static_cast<unsigned long long>(graphs), graphs / std::max(elapsed, 1e-9),
               static_cast<long long>(units_given), static_cast<long long>(units_), left);
}

PhaseProgress::PhaseProgress(std::string phase, std::string unit, bool enabled)
    : phase_(std::move(phase)),
      unit_(std::move(unit)),
      enabled_(enabled),
      start_(Clock::now()),
      last_(start_) {}

void PhaseProgress::operator()(uint64_t done, uint64_t total) {
  if (!enabled_ || !due(last_)) return;
  double elapsed = seconds_since(start_);
  double rate = done / std::max(elapsed, 1e-9);
  double left = done > 0 ? elapsed * double(total - std::min(done, total)) / double(done) : 0;
  std::fprintf(stderr, "%s: %llu/%llu %s (%.0f%%), %.0f %s/s, about %.0f s left\n", phase_.c_str(),
               static_cast<unsigned long long>(done), static_cast<unsigned long long>(total), unit_.c_str(),
               total ? 100.0 * done / total : 100.0, rate, unit_.c_str(), left);
}

void PhaseProgress::say(const std::string& text) const {
  if (enabled_) std::fprintf(stderr, "%s: %s\n", phase_.c_str(), text.c_str());
}

}  // namespace superopt::enumeration
