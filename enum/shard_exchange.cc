// Work distribution and fingerprint sharding over MPI point-to-point messages.
#include "enum/shard_exchange.h"

#include <mpi.h>

#include <cstring>
#include <numeric>

namespace superopt::enumeration {
namespace {

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
      case kWorkRequest: {  // rank 0: a worker's graph count, answered with a unit
        std::memcpy(&graphs_by_rank_[status.MPI_SOURCE], buffer.data(), 8);
        int64_t unit = next_ < units_.size() ? units_[next_++] : -1;
        MPI_Send(&unit, 8, MPI_CHAR, status.MPI_SOURCE, kWorkGrant, MPI_COMM_WORLD);
        break;
      }
      case kWorkGrant:
        std::memcpy(&pending_grant_, buffer.data(), 8);
        break;
      case kDone:
        ++done_ranks_;
        break;
    }
    if (block) return;
  }
}

void ShardExchange::poll() {
  serve(false);
  reap_sends(false);
}

int64_t ShardExchange::next_unit(uint64_t graphs) {
  if (rank_ == 0) {
    poll();
    graphs_by_rank_[0] = graphs;
    if (progress_)
      progress_(std::accumulate(graphs_by_rank_.begin(), graphs_by_rank_.end(), uint64_t{0}),
                static_cast<int64_t>(next_));
    return next_ < units_.size() ? units_[next_++] : -1;
  }
  MPI_Send(&graphs, 8, MPI_CHAR, 0, kWorkRequest, MPI_COMM_WORLD);
  pending_grant_ = -2;
  while (pending_grant_ == -2) serve(true);
  return pending_grant_;
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
