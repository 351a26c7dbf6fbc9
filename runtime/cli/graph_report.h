// What `superopt graph check` reports of a model: every node (operator,
// inputs, output shapes, FLOPs, bytes, and with a cost model its cost), the
// totals, inputs, weights, outputs and hash; as a struct for the table and as
// the one JSON object of `--json`, which the Python package returns too.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/core/operator_registry.h"
#include "runtime/cost/cost_model.h"
#include "runtime/models/model_zoo.h"

namespace superopt {

struct NodeReport {
  std::string name, op, params;
  std::vector<std::string> inputs;
  std::vector<Shape> outputs;
  OpCost cost;
  std::optional<int64_t> groups;  // conv2d only
  std::optional<double> cost_ms;  // with --cost
};

// What --cost adds: the model, the graph's cost and memory.
struct CostReport {
  std::string model;
  double total_ms = 0;  // graph_cost_ms: infinite past the memory limit
  int64_t fallbacks = 0, peak_bytes = 0;
};

struct CheckReport {
  std::string file, name, hash;
  std::vector<NodeReport> nodes;
  OpCost total;
  std::optional<CostReport> cost;
  int operators = 0;
  std::vector<std::pair<std::string, Shape>> inputs, weights, outputs;
};

// The report of `named` (read from `file`); with a cost model, each node's
// cost (weight-only nodes cost 0) and the graph's.
CheckReport check_graph(const std::string& file, const LoadedModel& named, CostModel* model);

// `graph check --json`'s object.
nlohmann::ordered_json check_json(const CheckReport& r);

}  // namespace superopt
