// Work distribution and fingerprint sharding over MPI point-to-point messages.
#include "enum/shard_exchange.h"

#include <mpi.h>

#include <cstring>
#include <numeric>

namespace superopt::enumeration {
namespace {

constexpr size_t kMaxGrant = 16;  // units per answer to a worker, at most

enum Tag : int { kRecords = 101, kWorkRequest = 102, kWorkGrant = 103, kDone = 104 };

}  // namespace

struct ShardExchange::PendingSend {
  std::string buffer;
  MPI_Request request = MPI_REQUEST_NULL;
};

ShardExchange::ShardExchange(std::vector<int64_t> units, std::function<void(uint64_t, int64_t)> progress,
                             Sink keep, size_t batch_bytes, size_t max_pending_sends)
    : units_(std::move(units)),
      keep_(std::move(keep)),
      batch_bytes_(batch_bytes),
      max_pending_sends_(max_pending_sends),
      progress_(std::move(progress)) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  outbox_.resize(size_);
  graphs_by_rank_.assign(size_, 0);
}

ShardExchange::~ShardExchange() {
  for (PendingSend* p : pending_) delete p;
}

void append_record(std::string& out, uint64_t fingerprint, std::string_view code) {
  char fp[8];
  std::memcpy(fp, &fingerprint, 8);
  out.append(fp, 8);
  out.push_back(static_cast<char>(code.size()));
  out.append(code);
}

void for_each_record(std::string_view records, const std::function<void(const GraphRecord&)>& f) {
  for (size_t at = 0; at + 9 <= records.size();) {
    GraphRecord r;
    std::memcpy(&r.fingerprint, records.data() + at, 8);
    size_t len = static_cast<uint8_t>(records[at + 8]);
    r.code = records.substr(at + 9, len);
    f(r);
    at += 9 + len;
  }
}

void ShardExchange::send(uint64_t fingerprint, std::string_view code_bytes) {
  int owner = static_cast<int>(fingerprint % static_cast<uint64_t>(size_));
  if (owner == rank_) {
    std::string& record = outbox_[rank_];  // a scratch string: this rank's own box is never sent
    record.clear();
    append_record(record, fingerprint, code_bytes);
    keep_(record);
    return;
  }
  append_record(outbox_[owner], fingerprint, code_bytes);
  if (outbox_[owner].size() >= batch_bytes_) flush(owner);
}

void ShardExchange::flush(int owner) {
  if (outbox_[owner].empty()) return;
  auto* p = new PendingSend;
  p->buffer.swap(outbox_[owner]);
  MPI_Isend(p->buffer.data(), static_cast<int>(p->buffer.size()), MPI_CHAR, owner, kRecords, MPI_COMM_WORLD,
            &p->request);
  pending_.push_back(p);
  ++messages_sent_;
  bytes_sent_ += p->buffer.size();
  reap_sends(false);
  // Bounded memory: wait (still receiving, so that nobody deadlocks) for the receivers.
  while (pending_.size() > max_pending_sends_) {
    serve(false);
    reap_sends(false);
  }
}

void ShardExchange::reap_sends(bool wait) {
  std::vector<PendingSend*> still;
  for (PendingSend* p : pending_) {
    int done = 0;
    if (wait)
      MPI_Wait(&p->request, MPI_STATUS_IGNORE), done = 1;
    else
      MPI_Test(&p->request, &done, MPI_STATUS_IGNORE);
    if (done)
      delete p;
    else
      still.push_back(p);
  }
  pending_.swap(still);
}

void ShardExchange::serve(bool block) {
  for (;;) {
    int flag = 0;
    MPI_Status status;
    if (block)
      MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status), flag = 1;
    else
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
    if (!flag) return;
    int count = 0;
    MPI_Get_count(&status, MPI_CHAR, &count);
    std::string buffer(count, '\0');
    MPI_Recv(buffer.data(), count, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    switch (status.MPI_TAG) {
      case kRecords:
        keep_(buffer);
        break;
      case kWorkRequest: {  // rank 0: a worker's graph count, answered with units
        std::memcpy(&graphs_by_rank_[status.MPI_SOURCE], buffer.data(), 8);
        std::vector<int64_t> grant = take_units();
        MPI_Send(grant.data(), static_cast<int>(grant.size() * 8), MPI_CHAR, status.MPI_SOURCE, kWorkGrant,
                 MPI_COMM_WORLD);
        break;
      }
      case kWorkGrant:  // a worker: units to run; none means all are taken
        if (buffer.empty()) units_exhausted_ = true;
        for (size_t at = 0; at + 8 <= buffer.size(); at += 8) {
          int64_t unit = 0;
          std::memcpy(&unit, buffer.data() + at, 8);
          granted_.push_back(unit);
        }
        request_out_ = false;
        break;
      case kDone:
        ++done_ranks_;
        break;
    }
    if (block) return;
  }
}

// Guided self-scheduling: a worker gets a share of what is left (at least
// one unit), so round trips to rank 0 are few while units are plenty and
// the last units still spread over every rank.
std::vector<int64_t> ShardExchange::take_units() {
  size_t left = units_.size() - next_;
  size_t count = std::min(left, std::max<size_t>(1, std::min<size_t>(kMaxGrant, left / (4 * size_))));
  std::vector<int64_t> grant(units_.begin() + next_, units_.begin() + next_ + count);
  next_ += count;
  return grant;
}

void ShardExchange::poll(uint64_t graphs) {
  serve(false);
  reap_sends(false);
  if (rank_ == 0) report_progress(graphs);
}

void ShardExchange::report_progress(uint64_t graphs) {
  graphs_by_rank_[0] = graphs;
  if (progress_)
    progress_(std::accumulate(graphs_by_rank_.begin(), graphs_by_rank_.end(), uint64_t{0}),
              static_cast<int64_t>(next_));
}

int64_t ShardExchange::next_unit(uint64_t graphs) {
  if (rank_ == 0) {
    poll(graphs);
    return next_ < units_.size() ? units_[next_++] : -1;
  }
  // When half a chunk is left, a worker asks for more, so that units are
  // there when it ends: a round trip to rank 0 per grant, waiting for rank 0
  // to poll and be scheduled on a loaded machine, would leave it idle.
  auto request = [&] {
    if (request_out_ || units_exhausted_ || granted_.size() > kMaxGrant / 2) return;
    MPI_Send(&graphs, 8, MPI_CHAR, 0, kWorkRequest, MPI_COMM_WORLD);
    request_out_ = true;
  };
  request();
  while (granted_.empty() && !units_exhausted_) serve(true);
  if (granted_.empty()) return -1;
  int64_t unit = granted_.front();
  granted_.pop_front();
  request();
  return unit;
}

void ShardExchange::finish() {
  for (int r = 0; r < size_; ++r)
    if (r != rank_) flush(r);
  outbox_[rank_].clear();
  // Messages between two ranks arrive in order, so a rank's "done" follows all its records.
  for (int r = 0; r < size_; ++r)
    if (r != rank_) MPI_Send(nullptr, 0, MPI_CHAR, r, kDone, MPI_COMM_WORLD);
  while (done_ranks_ < size_ - 1) {
    serve(true);
    reap_sends(false);
  }
  reap_sends(true);
}

}  // namespace superopt::enumeration
