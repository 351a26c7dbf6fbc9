// Canonical hashes and exact structural equality of graphs.
#include "runtime/core/graph_hash.h"

#include <algorithm>
#include <cassert>
#include <optional>
#include <unordered_map>

#include "runtime/core/hashing.h"

namespace superopt {
namespace {

bool named_identity(OpType op) {
  return op == OpType::input || op == OpType::weight || op == OpType::opaque;
}

// Memoised comparison of node computations across two graphs. Iterative, so
// that deep graphs (long chains) do not exhaust the stack.
class TreeComparer {
 public:
  TreeComparer(const Graph& a, const Graph& b) : a_(a), b_(b) {}

  bool same(NodeId x, NodeId y) {
    std::vector<std::pair<NodeId, NodeId>> stack{{x, y}};
    while (!stack.empty()) {
      auto [p, q] = stack.back();
      if (memo_.count(key(p, q))) {
        stack.pop_back();
        continue;
      }
      std::optional<bool> verdict = decide(p, q, stack);
      if (verdict) {
        memo_.emplace(key(p, q), *verdict);
        stack.pop_back();
      }
    }
    return memo_.at(key(x, y));
  }

 private:
  static uint64_t key(NodeId x, NodeId y) { return (uint64_t(uint32_t(x)) << 32) | uint32_t(y); }

  // The verdict for (p, q) when every input pair is decided; otherwise pushes
  // the undecided input pairs and returns nullopt.
  std::optional<bool> decide(NodeId p, NodeId q, std::vector<std::pair<NodeId, NodeId>>& stack) {
    const Node &n = a_.node(p), &m = b_.node(q);
    if (n.op != m.op || n.num_inputs != m.num_inputs || !params_equal(n.op, n.params, m.params) ||
        (named_identity(n.op) && n.name.str() != m.name.str()))
      return false;
    for (int i = 0; i < n.num_inputs; ++i)
      if (n.input_array[i].port != m.input_array[i].port) return false;
    bool pending = false;
    for (int i = 0; i < n.num_inputs; ++i) {
      auto it = memo_.find(key(n.input_array[i].node, m.input_array[i].node));
      if (it != memo_.end() && !it->second) return false;
      pending |= it == memo_.end();
    }
    // Push only once the verdict is known to depend on the inputs, so that a
    // verdict is always for the pair on top of the stack.
    for (int i = 0; pending && i < n.num_inputs; ++i)
      if (!memo_.count(key(n.input_array[i].node, m.input_array[i].node)))
        stack.push_back({n.input_array[i].node, m.input_array[i].node});
    if (pending) return std::nullopt;
    return true;
  }

  const Graph &a_, &b_;
  std::unordered_map<uint64_t, bool> memo_;
};

}  // namespace

std::vector<uint64_t> node_hashes(const Graph& g) {
  auto order = g.topological_order();
  assert(order && "node_hashes needs an acyclic graph");
  std::vector<uint64_t> h(g.num_nodes());
  for (NodeId id : *order) {
    const Node& n = g.node(id);
    uint64_t v = params_hash(n.op, n.params, 0x5eed);
    if (named_identity(n.op)) v = hash_string(n.name.str(), v);
    for (TensorRef t : n.inputs()) v = hash_combine(hash_combine(v, h[t.node]), t.port);
    h[id] = v;
  }
  return h;
}

namespace {

// v with the ordered outputs' computations (h: node_hashes(g)) folded in.
uint64_t fold_outputs(const Graph& g, const std::vector<uint64_t>& h, uint64_t v) {
  for (TensorRef t : g.outputs()) v = hash_combine(hash_combine(v, h[t.node]), t.port);
  return v;
}

uint64_t canonical_from(const Graph& g, const std::vector<uint64_t>& h) {
  std::vector<uint64_t> sorted = h;
  std::sort(sorted.begin(), sorted.end());
  return fold_outputs(g, h, hash_bytes(sorted.data(), sorted.size() * sizeof(uint64_t), 0x9a4));
}

constexpr uint64_t kOutputsSeed = 0x0b5;

}  // namespace

uint64_t canonical_hash(const Graph& g) {
  return canonical_from(g, node_hashes(g));
}

uint64_t outputs_hash(const Graph& g) {
  return fold_outputs(g, node_hashes(g), kOutputsSeed);
}

GraphHashes graph_hashes(const Graph& g) {
  const std::vector<uint64_t> h = node_hashes(g);
  return {canonical_from(g, h), fold_outputs(g, h, kOutputsSeed)};
}

namespace {

bool outputs_same(const Graph& a, const Graph& b, TreeComparer& cmp) {
  if (a.outputs().size() != b.outputs().size()) return false;
  for (size_t i = 0; i < a.outputs().size(); ++i) {
    TensorRef x = a.outputs()[i], y = b.outputs()[i];
    if (x.port != y.port || !cmp.same(x.node, y.node)) return false;
  }
  return true;
}

}  // namespace

bool same_outputs(const Graph& a, const Graph& b) {
  TreeComparer cmp(a, b);
  return outputs_same(a, b, cmp);
}

bool structurally_equal(const Graph& a, const Graph& b) {
  if (a.num_nodes() != b.num_nodes()) return false;
  TreeComparer cmp(a, b);
  if (!outputs_same(a, b, cmp)) return false;
  // Match the node multisets: bucket by hash, then pair equal computations.
  // Sameness is an equivalence, so greedy pairing within a bucket is exact.
  std::vector<uint64_t> ha = node_hashes(a), hb = node_hashes(b);
  std::unordered_map<uint64_t, std::vector<NodeId>> unmatched;
  for (NodeId y = 0; y < b.num_nodes(); ++y) unmatched[hb[y]].push_back(y);
  for (NodeId x = 0; x < a.num_nodes(); ++x) {
    auto it = unmatched.find(ha[x]);
    if (it == unmatched.end()) return false;
    auto& bucket = it->second;
    auto match = std::find_if(bucket.begin(), bucket.end(), [&](NodeId y) { return cmp.same(x, y); });
    if (match == bucket.end()) return false;
    bucket.erase(match);
  }
  return true;
}

}  // namespace superopt
