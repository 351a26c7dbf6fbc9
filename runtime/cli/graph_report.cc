// What `superopt graph check` reports of a model (graph_report.h).
#include "runtime/cli/graph_report.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "runtime/core/graph_analysis.h"
#include "runtime/core/graph_hash.h"
#include "runtime/formats/op_params_json.h"

namespace superopt {
namespace {

using Json = nlohmann::ordered_json;

NodeReport report_node(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  NodeReport r;
  r.name = tensor_label(g, {id, 0});
  r.op = op_name(n.op);
  r.params = params_str(n.op, n.params);
  std::vector<const TensorDesc*> in;
  for (TensorRef t : n.inputs()) {
    r.inputs.push_back(tensor_label(g, t));
    in.push_back(&g.desc(t));
  }
  for (int port = 0; port < n.num_outputs(); ++port) r.outputs.push_back(g.shape({id, port}));
  r.cost = op_cost(n.op, n.params, in, std::span(n.output_array.data(), size_t(n.num_outputs())));
  if (n.op == OpType::conv2d) r.groups = conv_groups(in[0]->shape, in[1]->shape);
  return r;
}

Json named_shapes_json(const std::vector<std::pair<std::string, Shape>>& list) {
  Json j = Json::array();
  for (const auto& [name, shape] : list) j.push_back({{"name", name}, {"shape", shape_json(shape)}});
  return j;
}

}  // namespace

CheckReport check_graph(const std::string& file, const LoadedModel& named, CostModel* model) {
  const Graph& g = named.graph;
  CheckReport r;
  r.file = file;
  r.name = named.name;
  std::vector<bool> weight_only = weight_only_nodes(g);  // the reader rejects cycles
  std::vector<NodeId> order = *g.topological_order();
  for (NodeId id : order) {
    NodeReport n = report_node(g, id);
    if (model) n.cost_ms = weight_only[id] ? 0 : model->node_cost_ms(g, id);
    r.total.flops += n.cost.flops;
    r.total.bytes_read += n.cost.bytes_read;
    r.total.bytes_written += n.cost.bytes_written;
    if (g.node(id).op == OpType::input) r.inputs.push_back({n.name, n.outputs[0]});
    if (g.node(id).op == OpType::weight) r.weights.push_back({n.name, n.outputs[0]});
    r.nodes.push_back(std::move(n));
  }
  for (TensorRef t : g.outputs()) r.outputs.push_back({tensor_label(g, t), g.shape(t)});
  r.operators = g.num_operators();
  char hash[20];
  std::snprintf(hash, sizeof hash, "%016" PRIx64, canonical_hash(g));
  r.hash = hash;
  if (model) {
    int64_t fallbacks = model->fallbacks();  // before graph_cost_ms looks every node up again
    r.cost = CostReport{model->name(), graph_cost_ms(g, *model), fallbacks, peak_activation_bytes(g)};
  }
  return r;
}

Json check_json(const CheckReport& r) {
  Json nodes = Json::array();
  for (const NodeReport& n : r.nodes) {
    Json outputs = Json::array();
    for (const Shape& s : n.outputs) outputs.push_back(shape_json(s));
    Json node = {{"name", n.name},
                 {"op", n.op},
                 {"params", n.params},
                 {"inputs", n.inputs},
                 {"outputs", outputs},
                 {"flops", n.cost.flops},
                 {"bytes_read", n.cost.bytes_read},
                 {"bytes_written", n.cost.bytes_written}};
    if (n.groups) node["groups"] = *n.groups;
    if (n.cost_ms) node["cost_ms"] = *n.cost_ms;
    nodes.push_back(std::move(node));
  }
  Json totals = {{"operators", r.operators},
                 {"flops", r.total.flops},
                 {"bytes_read", r.total.bytes_read},
                 {"bytes_written", r.total.bytes_written}};
  if (r.cost) {
    // JSON has no infinity: a graph over the memory limit has cost_ms null.
    totals["cost_model"] = r.cost->model;
    totals["cost_ms"] = std::isinf(r.cost->total_ms) ? Json() : Json(r.cost->total_ms);
    totals["peak_memory_bytes"] = r.cost->peak_bytes;
    totals["cost_fallbacks"] = r.cost->fallbacks;
  }
  return {{"file", r.file},
          {"name", r.name},
          {"valid", true},
          {"nodes", nodes},
          {"totals", totals},
          {"inputs", named_shapes_json(r.inputs)},
          {"weights", named_shapes_json(r.weights)},
          {"outputs", named_shapes_json(r.outputs)},
          {"hash", r.hash}};
}

}  // namespace superopt
