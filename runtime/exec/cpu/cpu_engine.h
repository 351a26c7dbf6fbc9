// The process-wide oneDNN CPU engine and stream, the thread count (oneDNN here
// runs on OpenMP), and what a cost table records of this CPU.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>
#include <string>

namespace superopt::cpu {

dnnl::engine& engine();
dnnl::stream& stream();

// The cores OpenMP may use (the affinity mask's size).
int available_cores();
// Sets the thread count oneDNN's primitives use; 0 means every core. Throws a
// one-line Error for a negative count or one above available_cores().
int set_threads(int threads);
int current_threads();

std::string onednn_version();  // "2.6.3"
std::string cpu_model();       // /proc/cpuinfo's "model name", or "unknown CPU"

}  // namespace superopt::cpu
