// Periodic saves of a database being decided (see progress_saver.h).
#include "verify/progress_saver.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace superopt::verify {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

int64_t exit_after_rules() {
  const char* v = std::getenv("SUPEROPT_TEST_EXIT_AFTER_RULES");
  return v ? std::atoll(v) : -1;
}

}  // namespace

ProgressSaver::ProgressSaver(RuleDatabase& db, std::string path, double save_seconds)
    : db_(db), path_(std::move(path)), save_seconds_(save_seconds), exit_after_(exit_after_rules()) {}

void ProgressSaver::recorded() {
  if (++records_ == exit_after_) {
    db_.write(path_);
    _exit(3);
  }
  if (seconds_since(saved_) < std::max(save_seconds_, kSaveShare * save_cost_seconds_)) return;
  const Clock::time_point before = Clock::now();
  db_.write(path_);
  saved_ = Clock::now();
  save_cost_seconds_ = seconds_since(before);
}

}  // namespace superopt::verify
