// MPI plumbing of the distributed generator: work units handed out on demand
// by rank 0, and graph records sent in batches to the rank owning their
// fingerprint (fingerprint % ranks), so each class meets on one rank. The
// records a rank owns go to a sink (its RecordStore) as they arrive.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace superopt::enumeration {

// A graph record as ranks exchange and store them:
// [fingerprint: 8 bytes][code length: 1 byte][code bytes].
struct GraphRecord {
  uint64_t fingerprint;
  std::string_view code;
};
void append_record(std::string& out, uint64_t fingerprint, std::string_view code);
void for_each_record(std::string_view records, const std::function<void(const GraphRecord&)>& f);

class ShardExchange {
 public:
  using Sink = std::function<void(std::string_view records)>;
  // `units` (the same on every rank) are handed out in order; `progress`
  // (rank 0 only) is called now and then with all ranks' graph counts summed
  // and the number of units handed out; `keep` takes this rank's records.
  // Records travel in messages of about `batch_bytes`; at most
  // `max_pending_sends` of them wait for their receivers (memory bound).
  ShardExchange(std::vector<int64_t> units,
                std::function<void(uint64_t graphs, int64_t units_given)> progress, Sink keep,
                size_t batch_bytes = size_t{1} << 20, size_t max_pending_sends = 64);
  ~ShardExchange();
  ShardExchange(const ShardExchange&) = delete;
  ShardExchange& operator=(const ShardExchange&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // The next work unit for this rank, or -1 when all are taken. `graphs` is
  // how many graphs this rank has made so far (for progress).
  int64_t next_unit(uint64_t graphs);
  // Queues one record for the owner of `fingerprint`.
  void send(uint64_t fingerprint, std::string_view code_bytes);
  // Called between graphs: answers requests and takes in records; on rank 0
  // also reports progress (`graphs`: made on this rank so far), so that a long
  // first work unit is not silent.
  void poll(uint64_t graphs);
  // Sends what is queued, then takes in records until every rank is done.
  void finish();

  // What this rank sent to others, for the scaling figures.
  uint64_t messages_sent() const { return messages_sent_; }
  uint64_t bytes_sent() const { return bytes_sent_; }

 private:
  void flush(int owner);
  void serve(bool block);
  void reap_sends(bool wait);
  void report_progress(uint64_t graphs);
  std::vector<int64_t> take_units();

  int rank_ = 0, size_ = 1;
  std::vector<int64_t> units_;
  size_t next_ = 0;  // rank 0 hands out units in order
  int done_ranks_ = 0;
  std::vector<std::string> outbox_;
  std::vector<uint64_t> graphs_by_rank_;
  struct PendingSend;
  std::vector<PendingSend*> pending_;
  Sink keep_;
  size_t batch_bytes_, max_pending_sends_;
  uint64_t messages_sent_ = 0, bytes_sent_ = 0;
  std::deque<int64_t> granted_;   // a worker's units from rank 0, not yet started
  bool request_out_ = false;      // a worker's request waits for rank 0's answer
  bool units_exhausted_ = false;  // rank 0 answered that no unit is left
  std::function<void(uint64_t, int64_t)> progress_;
};

}  // namespace superopt::enumeration
