// A local search after extraction under a cost model that costs graphs whole
// (CostModel::costs_whole_graphs: the CPU table's fused groups). Extraction
// costs each e-node alone, so it cannot see that a convolution and the relu
// after it run as one oneDNN primitive: under the CPU table it took separate
// relus where a fused group costs less (resnet50, resnext50: above
// backtracking's graph). This switches one class's e-node at a time and keeps
// a switch when the built graph's graph_cost_ms drops.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "runtime/egraph/extract.h"

namespace superopt::egraph {

struct PolishReport {
  int64_t trials = 0;      // graphs built and costed
  int64_t kept = 0;        // switches that lowered the graph's cost
  bool cut_short = false;  // the deadline came before a pass kept nothing
};

// Starting from `start` (a choice build_graph accepts), repeatedly tries, for
// each class the choice reaches from the roots, each other listed e-node of
// that class whose children all have a choice; a trial is kept when the choice
// stays acyclic and graph_cost_ms of the graph it builds drops by more than
// rounding. Passes until one keeps nothing, `max_passes`, or `deadline`.
// cost_ms of the result is its graph_cost_ms.
Extraction polish_by_graph_cost(const EGraph& eg, const Graph& seed_graph, const std::vector<ClassId>& roots,
                                const std::vector<double>& node_cost_ms, const Extraction& start,
                                CostModel& model, std::chrono::steady_clock::time_point deadline,
                                PolishReport& report, int max_passes = 4);

}  // namespace superopt::egraph
