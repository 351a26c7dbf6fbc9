// A thin RAII view of MPI_COMM_WORLD for the commands that run under mpirun/srun.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace superopt {

// Initialises MPI on construction (if nobody has) and finalises on
// destruction. Works as a single process without mpirun, also under a file size limit
// (ulimit -f) below the 4 MiB files PMIx keeps its store in: it is kept in
// memory then.
class MpiWorld {
 public:
  MpiWorld();
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  void barrier() const;
  // Every rank gets root's string.
  std::string broadcast(const std::string& text, int root = 0) const;
  // Every rank gets the values of all ranks, indexed by rank.
  std::vector<uint64_t> all_gather(uint64_t value) const;
  // Every rank gets the values of all ranks concatenated in rank order; ranks
  // may give different numbers of values (at most INT_MAX in all).
  std::vector<int64_t> all_gather(const std::vector<int64_t>& values) const;
  // Rank `root` gets the bytes of all ranks concatenated in rank order (at
  // most INT_MAX in all); the other ranks get an empty string.
  std::string gather_to_root(const std::string& bytes, int root = 0) const;
  // Rank `root` gets the sum (the largest value) over all ranks; the other
  // ranks get 0.
  uint64_t sum_to_root(uint64_t value, int root = 0) const;
  int64_t max_to_root(int64_t value, int root = 0) const;
  // Runs f on every rank; if it throws Error on any, every rank throws the
  // message of the lowest such rank, so that no rank waits for the others.
  void on_all_ranks(const std::function<void()>& f) const;
  // For an error on one rank while the others wait on its messages: prints
  // `line` to stderr and ends every rank with exit status `code`.
  [[noreturn]] void abort(const std::string& line, int code) const;

 private:
  int rank_ = 0;
  int size_ = 1;
  bool owns_ = false;
};

}  // namespace superopt
