// "Never return a wrong graph": run the input and the optimized graph on the
// CPU reference in double with the same seeded inputs and weights and compare
// every output; large models run at a reduced spatial size.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/core/graph.h"
#include "search/search.h"

namespace superopt::search {

inline constexpr double kCheckRelativeTolerance = 1e-6;

// Total FLOPs of a graph's operators.
int64_t graph_flops(const Graph& g);

// The graph with new shapes for some inputs (by name), rebuilt with shapes
// re-inferred; throws Error when a node no longer fits.
Graph with_input_shapes(const Graph& g, const std::vector<std::pair<std::string, Shape>>& shapes);

// The graphs the check runs: both at full size, or when before's FLOPs exceed
// flops_limit, with the spatial dims of their rank-4 inputs halved until under
// the limit (or as small as fits); `note` says which.
struct CheckGraphs {
  Graph before, after;
  std::string note;
};
CheckGraphs check_graphs(const Graph& before, const Graph& after, int64_t flops_limit);

// Throws Error before the search when the check of g could not fit in the
// memory budget (runtime/core/memory_budget.h): the search would be wasted.
void check_memory_for_check(const Graph& g, int64_t flops_limit);

// Compares all outputs of `before` and `after` (which read the same names).
// When before's FLOPs exceed flops_limit, both run with the spatial dims of
// their rank-4 inputs halved until under the limit (or as small as fits).
NumericalCheck numerical_check(const Graph& before, const Graph& after, uint64_t seed, int64_t flops_limit);

}  // namespace superopt::search
