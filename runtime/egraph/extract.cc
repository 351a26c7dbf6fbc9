// Seeding, e-node costs, greedy extraction and the graph of a choice (see extract.h).
#include "runtime/egraph/extract.h"

#include <limits>
#include <map>
#include <utility>

#include "runtime/core/error.h"
#include "runtime/core/hashing.h"
#include "runtime/egraph/stand_in.h"

namespace superopt::egraph {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The key a node's cost depends on: operator, parameters, input descriptors.
uint64_t cost_key(const EGraph& eg, const ENode& e) {
  uint64_t h = params_hash(e.op, e.params, uint64_t(e.op) + 1);
  for (ClassId c : e.children) {
    const TensorDesc& d = eg.eclass(c).descs[0];
    for (int i = 0; i < d.shape.rank(); ++i) h = hash_combine(h, uint64_t(d.shape[i]));
    h = hash_combine(hash_combine(h, uint64_t(d.shape.rank())), d.splits_id);
  }
  return h;
}

double op_cost_ms(const EGraph& eg, const ENode& e, CostModel& model) {
  Graph scratch;
  std::vector<TensorRef> in;
  for (ClassId c : e.children) {
    if (eg.eclass(c).descs.size() != 1) return kInf;
    in.push_back(stand_in(scratch, eg.eclass(c).descs[0], std::string("c").append(std::to_string(c))));
  }
  std::optional<NodeId> id = scratch.try_add(e.op, in, e.params);
  return id ? model.node_cost_ms(scratch, *id) : kInf;
}

}  // namespace

std::vector<ClassId> seed(EGraph& eg, const Graph& g) {
  std::vector<ClassId> tensor(size_t(g.num_nodes()) * kMaxOutputs, -1);
  std::optional<std::vector<NodeId>> order = g.topological_order();
  if (!order) throw Error("eqsat: the graph has a cycle");
  for (NodeId id : *order) {
    const Node& n = g.node(id);
    ENode e;
    e.op = n.op;
    e.params = n.params;
    if (n.op == OpType::input || n.op == OpType::weight || n.op == OpType::opaque) e.leaf = id;
    for (TensorRef t : n.inputs()) e.children.push_back(tensor[size_t(t.node) * kMaxOutputs + t.port]);
    std::optional<ClassId> c = eg.add(std::move(e));
    if (!c) throw Error("eqsat: node " + tensor_label(g, {id, 0}) + " does not fit its inputs");
    if (n.num_outputs() == 1) {
      tensor[size_t(id) * kMaxOutputs] = *c;
      continue;
    }
    for (int port = 0; port < n.num_outputs(); ++port) {
      ENode proj;
      proj.port = int8_t(port);
      proj.children = {*c};
      tensor[size_t(id) * kMaxOutputs + port] = eg.add(std::move(proj)).value();
    }
  }
  std::vector<ClassId> roots;
  for (TensorRef t : g.outputs()) roots.push_back(tensor[size_t(t.node) * kMaxOutputs + t.port]);
  return roots;
}

std::vector<double> node_costs_ms(const EGraph& eg, CostModel& model) {
  std::vector<double> cost(eg.num_nodes(), 0.0);
  std::map<uint64_t, double> cache;
  for (NodeIndex n = 0; n < eg.num_nodes(); ++n) {
    const ENode& e = eg.node(n);
    if (e.is_projection() || op_info(e.op).is_source()) continue;
    bool weight_only = true;
    for (ClassId c : e.children) weight_only = weight_only && eg.eclass(c).weight_only;
    if (weight_only) continue;
    const uint64_t key = cost_key(eg, e);
    auto it = cache.find(key);
    if (it == cache.end()) it = cache.emplace(key, op_cost_ms(eg, e, model)).first;
    cost[n] = it->second;
  }
  return cost;
}

Extraction greedy_extract(const EGraph& eg, const std::vector<double>& cost_ms,
                          const std::vector<ClassId>& roots) {
  struct Best {
    double cost = kInf;
    double size = kInf;  // nodes in the tree: breaks ties, so that no cycle is chosen
  };
  const int num = eg.num_nodes();
  std::vector<Best> best(size_t(num) + 1);  // by ClassId (ids never exceed the nodes added)
  Extraction x;
  x.choice.assign(size_t(num) + 1, -1);
  for (bool changed = true; changed;) {
    changed = false;
    for (NodeIndex n = 0; n < num; ++n) {
      const ClassId c = eg.class_of(n);
      if (eg.eclass(c).nodes.empty()) continue;
      Best b{cost_ms[n], 1};
      for (ClassId child : eg.node(n).children) {
        const Best& cb = best[eg.find(child)];
        b.cost += cb.cost;
        b.size += cb.size;
      }
      if (b.cost == kInf) continue;
      if (b.cost < best[c].cost || (b.cost == best[c].cost && b.size < best[c].size)) {
        if (!eg.listed(n)) continue;  // a congruent duplicate (after rebuild)
        best[c] = b;
        x.choice[c] = n;
        changed = true;
      }
    }
  }
  x.cost_ms = choice_cost_ms(eg, cost_ms, roots, x.choice);
  return x;
}

double choice_cost_ms(const EGraph& eg, const std::vector<double>& cost_ms, const std::vector<ClassId>& roots,
                      const std::vector<NodeIndex>& choice) {
  std::vector<char> seen(choice.size(), 0);
  std::vector<ClassId> stack(roots.begin(), roots.end());
  double total = 0;
  while (!stack.empty()) {
    const ClassId c = eg.find(stack.back());
    stack.pop_back();
    if (seen[c] || choice[c] < 0) continue;
    seen[c] = 1;
    total += cost_ms[choice[c]];
    for (ClassId child : eg.node(choice[c]).children) stack.push_back(child);
  }
  return total;
}

std::optional<double> acyclic_choice_cost_ms(const EGraph& eg, const std::vector<double>& cost_ms,
                                             const std::vector<ClassId>& roots,
                                             const std::vector<NodeIndex>& choice) {
  enum : char { unvisited, open, done };
  std::vector<char> state(choice.size(), unvisited);
  double total = 0;
  for (ClassId root : roots) {
    // Iterative depth-first search; a class met again while open closes a cycle.
    std::vector<std::pair<ClassId, size_t>> stack{{eg.find(root), 0}};
    while (!stack.empty()) {
      auto& [c, next_child] = stack.back();
      if (next_child == 0) {
        if (state[c] == done) {
          stack.pop_back();
          continue;
        }
        if (state[c] == open || choice[c] < 0) return std::nullopt;
        state[c] = open;
        total += cost_ms[choice[c]];
      }
      const std::vector<ClassId>& children = eg.node(choice[c]).children;
      if (next_child < children.size()) {
        const ClassId child = eg.find(children[next_child++]);
        if (state[child] == open) return std::nullopt;
        if (state[child] == unvisited) stack.push_back({child, 0});
        continue;
      }
      state[c] = done;
      stack.pop_back();
    }
  }
  return total;
}

std::optional<Graph> build_graph(const EGraph& eg, const Graph& seed_graph, const std::vector<ClassId>& roots,
                                 const std::vector<NodeIndex>& choice) {
  Graph out = seed_graph;
  enum : char { unvisited, open, done };
  std::vector<char> state(choice.size(), unvisited);
  std::vector<TensorRef> built(choice.size(), TensorRef{-1, 0});
  for (ClassId root : roots) {
    std::vector<ClassId> stack{eg.find(root)};
    while (!stack.empty()) {
      const ClassId c = stack.back();
      if (state[c] == done) {
        stack.pop_back();
        continue;
      }
      if (choice[c] < 0) return std::nullopt;
      const ENode& e = eg.node(choice[c]);
      if (state[c] == unvisited) {
        state[c] = open;
        for (ClassId child : e.children) {
          const ClassId k = eg.find(child);
          if (state[k] == open) return std::nullopt;  // a cycle
          if (state[k] == unvisited) stack.push_back(k);
        }
        continue;
      }
      stack.pop_back();
      state[c] = done;
      if (e.is_projection()) {
        built[c] = {built[eg.find(e.children[0])].node, e.port};
      } else if (e.op == OpType::input || e.op == OpType::weight) {
        built[c] = {e.leaf, 0};
      } else {
        std::vector<TensorRef> in;
        for (ClassId child : e.children) in.push_back(built[eg.find(child)]);
        std::optional<NodeId> id = out.try_add(e.op, in, e.params);
        if (!id) return std::nullopt;
        if (e.leaf >= 0)  // an opaque operator: its name says what it is
          id = out.add(e.op, in, e.params, seed_graph.node(e.leaf).name.str());
        built[c] = {*id, 0};
      }
    }
  }
  std::vector<TensorRef> outputs;
  for (ClassId root : roots) outputs.push_back(built[eg.find(root)]);
  out.set_outputs(outputs);
  out.remove_unused();
  return out;
}

}  // namespace superopt::egraph
