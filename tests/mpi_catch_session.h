// The Catch2 session of an MPI test: every rank runs the tests, and every rank
// exits with the worst verdict, or mpirun reports only one of them.
#pragma once

#include <algorithm>
#include <vector>

#include "runtime/mpi/mpi_world.h"
#include "tests/catch_runner.h"

namespace superopt::test {

inline int run_catch_session_on_all_ranks(const MpiWorld& world, int argc, char** argv) {
  const int failed = run_catch_session(argc, argv);
  const std::vector<uint64_t> all = world.all_gather(static_cast<uint64_t>(failed));
  return *std::max_element(all.begin(), all.end()) ? 1 : 0;
}

}  // namespace superopt::test
