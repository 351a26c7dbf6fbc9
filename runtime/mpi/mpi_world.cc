// MpiWorld: initialisation, finalisation and the few collectives the core needs.
#include "runtime/mpi/mpi_world.h"

#include <mpi.h>

#include "runtime/core/error.h"

namespace superopt {

MpiWorld::MpiWorld() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    MPI_Init(nullptr, nullptr);
    owns_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiWorld::~MpiWorld() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (owns_ && !finalized) MPI_Finalize();
}

void MpiWorld::barrier() const {
  MPI_Barrier(MPI_COMM_WORLD);
}

std::string MpiWorld::broadcast(const std::string& text, int root) const {
  uint64_t size = text.size();
  MPI_Bcast(&size, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
  std::string out = rank_ == root ? text : std::string(size, '\0');
  MPI_Bcast(out.data(), static_cast<int>(size), MPI_CHAR, root, MPI_COMM_WORLD);
  return out;
}

std::vector<uint64_t> MpiWorld::all_gather(uint64_t value) const {
  std::vector<uint64_t> all(size_);
  MPI_Allgather(&value, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  return all;
}

void MpiWorld::on_all_ranks(const std::function<void()>& f) const {
  std::string message;
  try {
    f();
  } catch (const Error& e) {
    message = e.what();
  }
  int mine = message.empty() ? size_ : rank_, first = size_;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == size_) return;
  throw Error(broadcast(message, first));
}

}  // namespace superopt
