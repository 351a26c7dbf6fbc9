// Progress lines of a generation run, printed by rank 0 to stderr at most once
// a second in every phase (enumerating, pairing and pruning, merging spilled
// runs, writing), with the rate and an estimate of the time left.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace superopt::enumeration {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start);

// The enumeration phase: graphs made on all ranks and work units handed out.
class EnumerationProgress {
 public:
  EnumerationProgress(int64_t units, bool enabled);
  void operator()(uint64_t graphs, int64_t units_given);

 private:
  int64_t units_;
  bool enabled_;
  Clock::time_point start_, last_;
};

// Any later phase: `done` of `total` things (record bytes, rules) that
// `unit` names; the phase name says whose share is counted.
class PhaseProgress {
 public:
  PhaseProgress(std::string phase, std::string unit, bool enabled);
  void operator()(uint64_t done, uint64_t total);
  // A one-off line for the phase (what it starts on, how it ended).
  void say(const std::string& text) const;

 private:
  std::string phase_, unit_;
  bool enabled_;
  Clock::time_point start_, last_;
};

}  // namespace superopt::enumeration
