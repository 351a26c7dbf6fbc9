// Saving a rule database while a long run (verify, derive) records into it, so
// that a preempted job loses little work and resumes where it stopped.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "runtime/db/rule_database.h"

namespace superopt::verify {

class ProgressSaver {
 public:
  // Writes `db` to `path` every `save_seconds`, or kSaveShare times as long as
  // the last save took: a save rewrites the whole file while the workers wait
  // for rank 0 (at 5 operators, 640k rules and 75 MB, a save took 15 s, and
  // saving every 30 s halved verify's rate).
  static constexpr double kSaveShare = 10;

  ProgressSaver(RuleDatabase& db, std::string path, double save_seconds);

  // One more verdict recorded into the database: saves if one is due. The
  // test hook SUPEROPT_TEST_EXIT_AFTER_RULES=N saves and dies abruptly at the
  // N-th, as a preempted job would.
  void recorded();

 private:
  using Clock = std::chrono::steady_clock;
  RuleDatabase& db_;
  std::string path_;
  double save_seconds_;
  int64_t exit_after_;
  int64_t records_ = 0;
  Clock::time_point saved_ = Clock::now();
  double save_cost_seconds_ = 0;  // how long the last save took
};

}  // namespace superopt::verify
