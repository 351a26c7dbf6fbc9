// From graphs to e-graphs and back: seeding an e-graph with a graph, each
// e-node's cost under a cost model, greedy extraction (egg's Extractor: the
// cheapest e-node per class, bottom up), and the graph of a choice of e-nodes.
#pragma once

#include <optional>
#include <vector>

#include "runtime/cost/cost_model.h"
#include "runtime/egraph/egraph.h"

namespace superopt::egraph {

// Adds g's nodes to eg; returns the class of each graph output. Inputs, weights
// and opaque operators keep their node id (ENode::leaf), so that the extracted
// graph reads the same inputs and weights. Throws Error when a node does not add.
std::vector<ClassId> seed(EGraph& eg, const Graph& g);

// Each e-node's cost in milliseconds under the model: 0 for sources,
// projections, and e-nodes whose children are all weight-only (computed once
// at load time, as graph_cost_ms counts them); infinity where it does not build.
std::vector<double> node_costs_ms(const EGraph& eg, CostModel& model);

// One e-node per class (-1: not chosen), by ClassId.
struct Extraction {
  std::vector<NodeIndex> choice;
  double cost_ms = 0;  // the objective: the chosen e-nodes' costs, each once
};

// The cheapest e-node of each class, with its subtree's cost (and then its size,
// so that zero-cost cycles are never chosen) computed to a fixpoint; each root's
// tree is acyclic. Shared subtrees count once in cost_ms.
Extraction greedy_extract(const EGraph& eg, const std::vector<double>& cost_ms,
                          const std::vector<ClassId>& roots);

// The chosen e-nodes' cost, each reachable from the roots counted once.
double choice_cost_ms(const EGraph& eg, const std::vector<double>& cost_ms, const std::vector<ClassId>& roots,
                      const std::vector<NodeIndex>& choice);

// The same cost when the choice is one build_graph accepts; nullopt when it
// has a cycle or a class reachable from the roots has no choice.
std::optional<double> acyclic_choice_cost_ms(const EGraph& eg, const std::vector<double>& cost_ms,
                                             const std::vector<ClassId>& roots,
                                             const std::vector<NodeIndex>& choice);

// The graph of a choice: seed_graph's inputs and weights, the chosen e-nodes
// from the roots down, the roots as outputs. nullopt when the choice has a
// cycle or a root's class has no choice.
std::optional<Graph> build_graph(const EGraph& eg, const Graph& seed_graph, const std::vector<ClassId>& roots,
                                 const std::vector<NodeIndex>& choice);

}  // namespace superopt::egraph
