// Part extraction and stitching, in the dependency order of the parts.
#include "search/stitch.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

#include "runtime/core/error.h"

namespace superopt::search {
namespace {

constexpr std::string_view kPlaceholder = "__part_in_";

bool is_source(OpType op) {
  return op == OpType::input || op == OpType::weight || is_constant(op);
}

// Adds a source node of `from` (an input, weight or constant) to `to`.
NodeId copy_source(const Graph& from, NodeId id, Graph& to) {
  const Node& n = from.node(id);
  if (n.op == OpType::input) return to.add_input(n.name.str(), n.params.shape);
  if (n.op == OpType::weight) {
    const std::vector<float>* data = from.weight_data(id);
    return to.add_weight(n.name.str(), n.params.shape, data ? *data : std::vector<float>{});
  }
  return to.add(n.op, {}, n.params, n.name.str());
}

}  // namespace

Part extract_part(const Graph& g, const std::vector<NodeId>& nodes) {
  Part part;
  std::vector<char> inside(g.num_nodes(), 0);
  for (NodeId id : nodes) inside[id] = 1;
  std::map<std::pair<NodeId, int>, TensorRef> local;  // whole-graph tensor -> part tensor
  auto tensor = [&](TensorRef t) -> TensorRef {
    auto it = local.find({t.node, t.port});
    if (it != local.end()) return it->second;
    TensorRef mapped;
    if (is_source(g.node(t.node).op)) {
      mapped = {copy_source(g, t.node, part.graph), 0};
    } else {
      mapped = {
          part.graph.add_input(std::string(kPlaceholder) + std::to_string(part.inputs.size()), g.shape(t)),
          0};
      part.inputs.push_back(t);
    }
    local[{t.node, t.port}] = mapped;
    return mapped;
  };
  std::vector<NodeId> order = g.topological_order().value();
  for (NodeId id : order) {
    if (!inside[id]) continue;
    const Node& n = g.node(id);
    std::vector<TensorRef> in;
    for (TensorRef t : n.inputs()) in.push_back(tensor(t));
    NodeId copy = part.graph.add(n.op, in, n.params, n.name.str());
    for (int port = 0; port < n.num_outputs(); ++port) local[{id, port}] = {copy, port};
  }
  // Outputs: read by a node outside, or a graph output.
  std::vector<char> is_output(g.num_nodes() * kMaxOutputs, 0);
  for (TensorRef t : g.outputs()) is_output[t.node * kMaxOutputs + t.port] = 1;
  for (NodeId id = 0; id < g.num_nodes(); ++id)
    if (!inside[id])
      for (TensorRef t : g.node(id).inputs()) is_output[t.node * kMaxOutputs + t.port] = 1;
  for (NodeId id : order) {
    if (!inside[id]) continue;
    for (int port = 0; port < g.node(id).num_outputs(); ++port)
      if (is_output[id * kMaxOutputs + port]) {
        part.outputs.push_back({id, port});
        part.graph.add_output(local.at({id, port}));
      }
  }
  return part;
}

Stitched stitch(const Graph& g, const std::vector<std::vector<NodeId>>& part_nodes,
                const std::vector<Part>& parts) {
  // Units: each part, and each node outside the parts; ordered by Kahn's algorithm.
  int n = g.num_nodes(), num_parts = int(parts.size());
  std::vector<int> unit(n);
  for (NodeId id = 0; id < n; ++id) unit[id] = num_parts + id;
  for (int p = 0; p < num_parts; ++p)
    for (NodeId id : part_nodes[p]) unit[id] = p;
  int num_units = num_parts + n;
  std::vector<std::vector<int>> next(num_units);
  std::vector<int> waiting(num_units, 0);
  std::vector<char> present(num_units, 0);
  for (NodeId id = 0; id < n; ++id) {
    present[unit[id]] = 1;
    for (TensorRef t : g.node(id).inputs())
      if (unit[t.node] != unit[id]) {
        next[unit[t.node]].push_back(unit[id]);
        ++waiting[unit[id]];
      }
  }
  Stitched out;
  std::map<std::pair<NodeId, int>, TensorRef> mapped;  // tensor of g -> tensor of out
  auto emit_node = [&](NodeId id) {
    const Node& node = g.node(id);
    NodeId copy;
    if (is_source(node.op)) {
      copy = copy_source(g, id, out.graph);
    } else {
      std::vector<TensorRef> in;
      for (TensorRef t : node.inputs()) in.push_back(mapped.at({t.node, t.port}));
      copy = out.graph.add(node.op, in, node.params, node.name.str());
    }
    for (int port = 0; port < node.num_outputs(); ++port) mapped[{id, port}] = {copy, port};
    out.origin.resize(out.graph.num_nodes(), -1);
  };
  std::unordered_map<std::string, TensorRef> by_name;  // the model's inputs and weights in out
  auto emit_part = [&](int p) {
    const Part& part = parts[p];
    const Graph& pg = part.graph;
    std::vector<TensorRef> source(pg.num_nodes());  // inputs and weights of pg: their tensor in out
    std::vector<NodeId> copy(pg.num_nodes(), -1);   // other nodes of pg: their node in out
    auto local = [&](TensorRef t) {
      return copy[t.node] >= 0 ? TensorRef{copy[t.node], t.port} : source[t.node];
    };
    std::vector<NodeId> order = pg.topological_order().value();
    for (NodeId id : order) {
      const Node& node = pg.node(id);
      std::string name = node.name.str();
      if (node.op == OpType::input && name.starts_with(kPlaceholder)) {
        TensorRef t = part.inputs.at(std::stoul(name.substr(kPlaceholder.size())));
        source[id] = mapped.at({t.node, t.port});
      } else if (node.op == OpType::input || node.op == OpType::weight) {
        source[id] = by_name.at(name);
      } else {
        std::vector<TensorRef> in;
        for (TensorRef t : node.inputs()) in.push_back(local(t));
        copy[id] = out.graph.add(node.op, in, node.params, name);
        out.origin.resize(out.graph.num_nodes(), p);
      }
    }
    for (size_t k = 0; k < part.outputs.size(); ++k)
      mapped[{part.outputs[k].node, part.outputs[k].port}] = local(pg.outputs()[k]);
  };
  // Sources first, so that parts find the model's inputs and weights by name.
  for (NodeId id = 0; id < n; ++id)
    if (g.node(id).op == OpType::input || g.node(id).op == OpType::weight) {
      emit_node(id);
      by_name[g.node(id).name.str()] = mapped.at({id, 0});
      present[unit[id]] = 0;
    }
  std::vector<int> ready;
  for (int u = 0; u < num_units; ++u)
    if (waiting[u] == 0) ready.push_back(u);
  int emitted = 0;
  while (!ready.empty()) {
    int u = ready.back();
    ready.pop_back();
    ++emitted;
    if (present[u]) u < num_parts ? emit_part(u) : emit_node(u - num_parts);
    for (int v : next[u])
      if (--waiting[v] == 0) ready.push_back(v);
  }
  if (emitted != num_units) throw Error("stitching: the parts depend on each other in a cycle");
  for (TensorRef t : g.outputs()) out.graph.add_output(mapped.at({t.node, t.port}));
  return out;
}

}  // namespace superopt::search
