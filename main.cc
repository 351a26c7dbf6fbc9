// The superopt executable: one binary, one subcommand per stage of the pipeline
// (the table is in superopt_commands.cc).
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "superopt_commands.h"

namespace {

// OpenMP threads that spin at barriers (libgomp's default) turn a busy machine
// pathological: on a loaded 2 cores, `run builtin:bert --threads 2` took 662
// ms a run against 222 ms with passive waits (and 235 ms at 1 thread; issue 34).
// libgomp reads OMP_WAIT_POLICY once, when it is loaded, before main: so when
// it is not set the process starts itself again with it set to passive. A
// policy given (OMP_WAIT_POLICY=active for a quiet benchmark machine) is kept;
// MPI ranks (which run no OpenMP) and a failed exec go on as they are.
void use_passive_openmp_waits(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_RANK"))
    return;
  if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  execv("/proc/self/exe", argv);
  unsetenv("OMP_WAIT_POLICY");  // exec failed: this process's OpenMP keeps its policy
}

}  // namespace

int main(int argc, char** argv) {
  use_passive_openmp_waits(argv);
  return superopt::superopt_main(std::vector<std::string>(argv + 1, argv + argc));
}
