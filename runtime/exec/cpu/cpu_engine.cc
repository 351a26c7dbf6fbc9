// oneDNN's CPU engine, OpenMP threads and the CPU's identity.
#include "runtime/exec/cpu/cpu_engine.h"

#include <omp.h>

#include <fstream>

#include "runtime/core/error.h"

namespace superopt::cpu {

dnnl::engine& engine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

dnnl::stream& stream() {
  static dnnl::stream s(engine());
  return s;
}

int available_cores() {
  return omp_get_num_procs();
}

int set_threads(int threads) {
  const int cores = available_cores();
  if (threads < 0 || threads > cores)
    throw Error("thread count " + std::to_string(threads) + " is not between 1 and the " +
                std::to_string(cores) + " cores of this machine");
  const int chosen = threads == 0 ? cores : threads;
  omp_set_num_threads(chosen);
  return chosen;
}

int current_threads() {
  return omp_get_max_threads();
}

std::string onednn_version() {
  const dnnl_version_t* v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.starts_with("model name")) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown CPU";
}

}  // namespace superopt::cpu
