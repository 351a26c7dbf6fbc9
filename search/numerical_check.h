// "Never return a wrong graph": run the input and the optimized graph on the
// CPU reference in double with the same seeded inputs and weights and compare
// every output; large models run at a reduced spatial size.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/core/tensor.h"
#include "search/deadline.h"
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
// the limit (or as small as fits); `note` says which, `shapes` the inputs'
// reduced shapes (empty at full size).
struct CheckGraphs {
  Graph before, after;
  std::string note;
  std::vector<std::pair<std::string, Shape>> shapes;
};
CheckGraphs check_graphs(const Graph& before, const Graph& after, int64_t flops_limit);

// Throws Error before the search when the check of g could not fit in the
// memory budget (runtime/core/memory_budget.h): the search would be wasted.
void check_memory_for_check(const Graph& g, int64_t flops_limit);

// Compares all outputs of `before` and `after` (which read the same names).
// When before's FLOPs exceed flops_limit, both run with the spatial dims of
// their rank-4 inputs halved until under the limit (or as small as fits).
// The deadline is looked at before each operator: once it has passed the check
// stops with cut_short set (not ran, not passed) and says how far it got. When
// before's outputs are not all finite (a long chain overflows on random
// values) the check is inconclusive (not ran, not passed): it blames nothing.
NumericalCheck numerical_check(const Graph& before, const Graph& after, uint64_t seed, int64_t flops_limit,
                               Deadline deadline = Deadline::max());

// The input's half of the check, computed once before the search: its outputs
// at the check's size, and how long they took (what the optimized graph's half
// will take, about). `check` is cut short or inconclusive when the reference
// is; then no optimized graph can pass.
struct CheckReference {
  std::vector<Tensor<double>> outputs;
  std::vector<std::pair<std::string, Shape>> shapes;  // the reduced input shapes, empty at full size
  NumericalCheck check;                               // its note says at which size
  double seconds = 0;
};
CheckReference check_reference(const Graph& before, uint64_t seed, int64_t flops_limit, Deadline deadline);

// numerical_check(before, after, ...) with before's outputs taken from the
// reference (same seed and FLOPs limit), unless after does not fit the
// reference's size (then both run again).
NumericalCheck check_against(const CheckReference& ref, const Graph& before, const Graph& after,
                             uint64_t seed, int64_t flops_limit, Deadline deadline);

}  // namespace superopt::search
