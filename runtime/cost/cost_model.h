// Cost models: what the optimizer minimises. An operator's cost in milliseconds
// from an analytic roofline (a device profile), a table measured on a device, or
// a live device (runtime/exec/); a graph's cost is the sum over its operators
// (TASO section 5), or, for a model that knows what its device runs fused, over
// what runs (graph_sum_ms).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/graph.h"

namespace superopt {

// The key a measured cost is stored under: operator type, the parameters it
// takes, its input shapes and the memory layout, as stable text, e.g.
//   "conv2d|stride=1x1 padding=same activation=relu|1x64x56x56,64x64x3x3|row"
// A split adds its parts' shapes ("split|axis=1|64x3072>64x2048,64x1024|row"),
// which its input's shape does not fix.
// Equal signatures mean equal work on a device; the text never depends on node
// names, ids or the order nodes were added in.
std::string op_signature(const Graph& g, NodeId id);

// One measured entry that a graph's cost adds: its key in a cost table
// (op_signature, fusion.h's fused_signature, a CPU reorder's signature) and the
// noise of its measurement (node_spread_ms; 0 for a computed cost).
struct CostUnit {
  std::string signature;
  double spread_ms = 0;
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  // Cost of one node in milliseconds. Inputs, weights and constants cost 0
  // (weights are loaded once, constants folded before running).
  virtual double node_cost_ms(const Graph& g, NodeId id) = 0;
  // "analytic:h100", "table:data/costs/h100.h5", ... as given to make_cost_model
  // (runtime/exec/cost_models.h).
  virtual std::string name() const = 0;
  // Lookups that found no entry and fell back to another model (table: the
  // analytic model of the table's device); 0 for models that never fall back.
  virtual int64_t fallbacks() const { return 0; }
  // A graph whose peak memory exceeds this costs infinity (MetaFlow's memory
  // limit); no limit by default.
  virtual int64_t memory_limit_bytes() const { return std::numeric_limits<int64_t>::max(); }
  // The noise of node_cost_ms, in milliseconds: the interquartile range of
  // the timed runs behind a measured cost (cost_spread.h); 0 for a model that
  // computes its costs (analytic) rather than measuring them.
  virtual double node_spread_ms(const Graph& /*g*/, NodeId /*id*/) { return 0; }
  // Whether node_spread_ms can be other than 0 (the search skips the noise otherwise).
  virtual bool measures() const { return false; }
  // The running nodes' costs summed (graph_cost_ms without the memory limit).
  // A model that knows which nodes its device runs fused (the CPU's, fusion.h)
  // costs such a group once.
  virtual double graph_sum_ms(const Graph& g, const std::vector<bool>& weight_only);
  // Whether graph_sum_ms is more than node_cost_ms summed (fused groups,
  // reorders): a search then costs a rewrite on the graph around it
  // (search/window_cost.h) rather than by the operators it adds and removes.
  virtual bool costs_whole_graphs() const { return false; }
  // graph_sum_ms without what runs between operators (the CPU model's
  // reorders): how a search costs a window cut out of a graph
  // (search/window_cost.h), whose boundary formats are not the graph's and
  // would only add entries to measure.
  virtual double operators_sum_ms(const Graph& g, const std::vector<bool>& weight_only) {
    return graph_sum_ms(g, weight_only);
  }
  // The entries graph_sum_ms adds, once per time it adds one: by default
  // every running node's op_signature with node_spread_ms; a model that costs
  // graphs whole lists its fused groups and reorders instead (cost_spread.h
  // compares two graphs' noise by these).
  virtual std::vector<CostUnit> graph_units(const Graph& g, const std::vector<bool>& weight_only);
};

// Sum of node_cost_ms over the graph's nodes, or infinity when the graph's
// peak memory exceeds the model's memory limit. Nodes computed only from
// weights and constants are skipped: inference computes them once at load
// time (TASO's preprocessing), so rules that rearrange weights cost nothing.
double graph_cost_ms(const Graph& g, CostModel& model);

}  // namespace superopt
