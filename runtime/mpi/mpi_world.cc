// MpiWorld: initialisation, finalisation and the collectives the stages share.
#include "runtime/mpi/mpi_world.h"

#include <mpi.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "runtime/core/error.h"

// Under AddressSanitizer (the build-asan tests), what Open MPI allocates in
// MPI_Init and MPI_Finalize is not reported as leaked: Open MPI keeps it until
// exit by design, and unloads the plugins that allocated it before the leak
// check runs, so their stacks cannot be named in a suppression file. Our own
// allocations are never inside these two calls.
#if defined(__SANITIZE_ADDRESS__)
#define SUPEROPT_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SUPEROPT_LSAN 1
#endif
#endif
#ifdef SUPEROPT_LSAN
#include <sanitizer/lsan_interface.h>
#endif

namespace superopt {
namespace {

struct OpenMpiOwnAllocations {
#ifdef SUPEROPT_LSAN
  __lsan::ScopedDisabler not_leaks;
#endif
};

// PMIx, which starts Open MPI, keeps its shared store in files of 4 MiB: under
// a smaller file size limit (ulimit -f) MPI_Init failed with 16-19 lines of
// PMIx and ORTE errors that never named the limit (issue 37, item 10). There
// PMIx is told to keep the store in memory instead (its "hash" store, as
// PMIX_MCA_gds=hash would), so MPI starts and the limit is met where a file of
// ours reaches it, with that file named. A store the user chose is kept.
constexpr rlim_t kPmixStoreFileBytes = rlim_t{4} << 20;

void keep_pmix_store_in_memory_under_a_file_limit() {
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
  if (limit.rlim_cur >= kPmixStoreFileBytes || std::getenv("PMIX_MCA_gds")) return;
  ::setenv("PMIX_MCA_gds", "hash", 0);
}

}  // namespace

MpiWorld::MpiWorld() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    keep_pmix_store_in_memory_under_a_file_limit();
    [[maybe_unused]] OpenMpiOwnAllocations scope;
    MPI_Init(nullptr, nullptr);
    owns_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiWorld::~MpiWorld() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (owns_ && !finalized) {
    [[maybe_unused]] OpenMpiOwnAllocations scope;
    MPI_Finalize();
  }
}

void MpiWorld::abort(const std::string& line, int code) const {
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // MPI_Abort does not return; this keeps [[noreturn]] honest
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

std::vector<int64_t> MpiWorld::all_gather(const std::vector<int64_t>& values) const {
  int n = static_cast<int>(values.size());
  std::vector<int> counts(size_), offsets(size_);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0);
  std::vector<int64_t> all(offsets.back() + counts.back());
  MPI_Allgatherv(values.data(), n, MPI_INT64_T, all.data(), counts.data(), offsets.data(), MPI_INT64_T,
                 MPI_COMM_WORLD);
  return all;
}

std::string MpiWorld::gather_to_root(const std::string& bytes, int root) const {
  int mine = static_cast<int>(bytes.size());
  std::vector<int> sizes(size_), offsets(size_);
  MPI_Gather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, root, MPI_COMM_WORLD);
  std::string all;
  if (rank_ == root) {
    std::exclusive_scan(sizes.begin(), sizes.end(), offsets.begin(), 0);
    all.resize(offsets.back() + sizes.back());
  }
  MPI_Gatherv(bytes.data(), mine, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, root,
              MPI_COMM_WORLD);
  return all;
}

uint64_t MpiWorld::sum_to_root(uint64_t value, int root) const {
  uint64_t total = 0;
  MPI_Reduce(&value, &total, 1, MPI_UINT64_T, MPI_SUM, root, MPI_COMM_WORLD);
  return total;
}

int64_t MpiWorld::max_to_root(int64_t value, int root) const {
  int64_t top = 0;
  MPI_Reduce(&value, &top, 1, MPI_INT64_T, MPI_MAX, root, MPI_COMM_WORLD);
  return top;
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
