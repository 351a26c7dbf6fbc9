// Checks a graph run on the CPU backend against the CPU reference in double:
// every operator on the backend's own inputs (kernel errors without their
// compounding through the graph), every folded weight, and the outputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/tensor.h"
#include "runtime/exec/cpu/cpu_graph.h"

namespace superopt::cpu {

struct CpuCheck {
  double node_error = 0;       // worst operator against the reference operator on the backend's inputs
  std::string worst_node;      // "label (signature)"
  int nodes_beyond_float = 0;  // operators whose inputs or reference outputs exceed float's range
  std::vector<std::string> beyond_float;  // their labels, in graph order
  double weight_error = 0;                // worst folded weight as held
  std::string worst_weight;
  double output_error = 0;  // worst graph output, end to end
  std::string worst_output;
};

// `graph` must have run (its tensors hold the last run's values); `seed` is the one it was built with.
CpuCheck check_against_reference(const Graph& g, CpuGraph& graph, uint64_t seed);

}  // namespace superopt::cpu
