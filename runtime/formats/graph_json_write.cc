// Writing graph files: one entry per line, every parameter explicit, floats exact.
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "runtime/formats/graph_json.h"
#include "runtime/formats/json_text.h"
#include "runtime/formats/op_params_json.h"

namespace superopt {
namespace {

using namespace json;

// Each node's name in the file: its own when usable and not taken by an
// earlier node, otherwise a fresh "n<id>".
std::vector<std::string> file_names(const Graph& g) {
  std::vector<std::string> names(g.num_nodes());
  std::set<std::string> taken;
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const std::string& name = g.node(id).name.str();
    bool usable = !name.empty() && name.find(':') == std::string::npos && !has_control_character(name);
    if (usable && taken.insert(name).second) names[id] = name;
  }
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    if (!names[id].empty()) continue;
    std::string base = std::string("n").append(std::to_string(id)), candidate = base;
    for (int k = 1; !taken.insert(candidate).second; ++k) candidate = base + "_" + std::to_string(k);
    names[id] = candidate;
  }
  return names;
}

std::string ref_str(TensorRef t, const std::vector<std::string>& names) {
  return t.port ? names[t.node] + ":" + std::to_string(t.port) : names[t.node];
}

Json source_json(const Graph& g, NodeId id, const std::vector<std::string>& names) {
  Json j = {{"name", names[id]}, {"shape", shape_json(g.node(id).params.shape)}};
  if (const std::vector<float>* data = g.weight_data(id)) {
    Json values = Json::array();
    for (float f : *data) {
      // JSON has no infinities; an attention mask's -inf is written as the string "-inf".
      if (std::isinf(f)) {
        values.push_back(f > 0 ? "inf" : "-inf");
        continue;
      }
      if (std::isnan(f))
        throw_error("cannot write weight '" + names[id] +
                    "': its data holds nan, which a graph file cannot hold");
      values.push_back(float_json(f));
    }
    j["data"] = std::move(values);
  }
  return j;
}

Json node_json(const Graph& g, NodeId id, const std::vector<std::string>& names) {
  const Node& n = g.node(id);
  Json j = {{"name", names[id]}, {"op", op_name(n.op)}};
  if (n.num_inputs > 0) {
    j["inputs"] = Json::array();
    for (TensorRef t : n.inputs()) j["inputs"].push_back(ref_str(t, names));
  }
  if (Json params = op_params_json(n.op, n.params); !params.empty()) j["params"] = std::move(params);
  return j;
}

void append_array(std::string& out, std::string_view key, const std::vector<Json>& items) {
  out += "  \"" + std::string(key) + "\": [";
  for (size_t i = 0; i < items.size(); ++i) {
    out += i ? ",\n    " : "\n    ";
    render(out, items[i]);
  }
  out += items.empty() ? "],\n" : "\n  ],\n";
}

// The reader refuses a tensor over kMaxElements (graph_json_read.cc), so the
// writer does too: an exported file that `graph check` then refused (an ONNX
// model's 65536x65536x65536 input, which ONNX import takes) was the only sign.
void check_readable_sizes(const Graph& g, const std::vector<std::string>& names) {
  for (NodeId id = 0; id < g.num_nodes(); ++id)
    for (int port = 0; port < g.node(id).num_outputs(); ++port) {
      const Shape& s = g.shape({id, port});
      int64_t n = 1;
      for (int i = 0; i < s.rank(); ++i)
        if (__builtin_mul_overflow(n, s[i], &n) || n > kMaxElements)
          throw_error("cannot write a graph file with tensor '" + ref_str({id, port}, names) + "' of shape " +
                      s.str() + ": more than 2^40 elements, over what graph files hold (export to .onnx)");
    }
}

}  // namespace

std::string write_graph_json(const Graph& g, std::string_view graph_name) {
  DependencyOrder ordering = dependency_order(g.num_nodes(), [&](int id) { return g.node(id).inputs(); });
  if (!ordering.cycle.empty()) throw_error("cannot write a graph with a cycle");
  if (g.outputs().empty()) throw_error("cannot write a graph without outputs (a graph file needs one)");
  std::vector<std::string> names = file_names(g);
  check_readable_sizes(g, names);
  std::vector<Json> inputs, weights, nodes;
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    if (g.node(id).op == OpType::input) inputs.push_back(source_json(g, id, names));
    if (g.node(id).op == OpType::weight) weights.push_back(source_json(g, id, names));
  }
  for (NodeId id : ordering.order)
    if (g.node(id).op != OpType::input && g.node(id).op != OpType::weight)
      nodes.push_back(node_json(g, id, names));
  std::string out = "{\n  \"format\": \"superopt-graph\",\n  \"version\": 1,\n";
  if (!graph_name.empty()) {
    out += "  \"name\": ";
    render(out, Json(std::string(graph_name)));
    out += ",\n";
  }
  append_array(out, "inputs", inputs);
  append_array(out, "weights", weights);
  append_array(out, "nodes", nodes);
  Json outputs = Json::array();
  for (TensorRef t : g.outputs()) outputs.push_back(ref_str(t, names));
  out += "  \"outputs\": ";
  render(out, outputs);
  return out + "\n}\n";
}

}  // namespace superopt
