// The graph records a rank owns, kept until pairing: in memory while they fit
// under a byte limit, else as sorted runs spilled to a scratch folder and
// merged by fingerprint (an external sort), so pairing sees the same classes
// in the same order whatever the limit.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace superopt::enumeration {

// Bytes the sort index costs per record on top of the record itself (one
// GraphRecord: fingerprint and string_view), counted against the limit.
constexpr int64_t kIndexBytesPerRecord = 24;

class RecordStore {
 public:
  // `memory_bytes` 0: everything stays in memory, up to the memory budget
  // (runtime/core/memory_budget.h: Error beyond it). Otherwise records and their
  // sort index use at most that much before a sorted run goes to
  // `scratch_dir`/rank-R/ (created here; Error if it cannot be written).
  RecordStore(int64_t memory_bytes, const std::string& scratch_dir, int rank);
  ~RecordStore();  // removes this rank's runs and folder
  RecordStore(const RecordStore&) = delete;
  RecordStore& operator=(const RecordStore&) = delete;

  // Takes whole records (GraphRecord layout); may spill a run (Error when
  // the scratch folder cannot take it).
  void add(std::string_view records);

  // A class: its fingerprint and its members' code bytes in byte order.
  using ClassVisitor = std::function<void(uint64_t fingerprint, const std::vector<std::string_view>& codes)>;
  // Called now and then with record bytes visited so far and in all.
  using Progress = std::function<void(uint64_t done_bytes, uint64_t total_bytes)>;
  // Visits every class in fingerprint order, once; memory is released as it goes.
  void for_each_class(const ClassVisitor& visit, const Progress& progress = {});

  uint64_t record_bytes() const { return record_bytes_; }      // taken in all
  int runs() const { return static_cast<int>(runs_.size()); }  // on disk now
  uint64_t runs_written() const { return runs_written_; }
  uint64_t spilled_bytes() const { return spilled_bytes_; }
  // Called after each spilled run with the runs and bytes spilled so far and
  // the seconds the run took (rank 0 prints it: a large sort is not silent).
  using SpillReport = std::function<void(uint64_t runs, uint64_t bytes, double seconds)>;
  void on_spill(SpillReport report) { spill_report_ = std::move(report); }
  // Deletes the spilled runs (also on failure, before an abort).
  void remove_runs();

 private:
  void spill();
  void refuse_over_budget(uint64_t more_records, size_t more_bytes) const;
  void visit_in_memory(const ClassVisitor& visit, const Progress& progress);
  void merge_runs(const ClassVisitor& visit, const Progress& progress);

  int64_t limit_bytes_;
  int rank_;
  std::string dir_;
  std::string buffer_;
  uint64_t buffered_records_ = 0;
  uint64_t record_bytes_ = 0, spilled_bytes_ = 0, runs_written_ = 0;
  std::vector<std::string> runs_;
  SpillReport spill_report_;
};

}  // namespace superopt::enumeration
