// Checkpoints of a generation run: each rank appends the records of every
// work unit it finishes to its own log, so a killed run (one rank or all)
// started again with the same arguments redoes only unfinished units.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace superopt::enumeration {

class CheckpointLog {
 public:
  // Opens DIR/rank-R.log (creating DIR and the log), reads the units an
  // earlier attempt finished and drops a torn last entry. Throws Error when
  // the log belongs to another run (other arguments or number of ranks).
  CheckpointLog(const std::string& dir, int rank, int ranks, uint64_t run_key, const std::string& run_text);
  ~CheckpointLog();
  CheckpointLog(const CheckpointLog&) = delete;
  CheckpointLog& operator=(const CheckpointLog&) = delete;

  // Units finished in earlier attempts, and their records, in log order.
  const std::vector<int64_t>& done_units() const { return done_; }
  void replay(const std::function<void(std::string_view records)>& f) const;

  // Appends a finished unit; flushed at once and synced to disk at most
  // once a second, so a kill loses at most the units of the last second.
  void append(int64_t unit, const std::string& records);

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  std::vector<int64_t> done_;
  std::vector<std::pair<long, size_t>> blocks_;  // offset and size of each unit's records
  double last_sync_ = 0;
};

}  // namespace superopt::enumeration
