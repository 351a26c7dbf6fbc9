// The CPU executor's convolution fusion groups (see cpu_fusion.h).
#include "runtime/exec/cpu/cpu_fusion.h"

namespace superopt::cpu {
namespace {

// How many times each tensor is read: by nodes, and once more per graph output.
class Uses {
 public:
  explicit Uses(const Graph& g) : reader_(size_t(g.num_nodes()), -1), count_(size_t(g.num_nodes()), 0) {
    for (NodeId id = 0; id < g.num_nodes(); ++id)
      for (TensorRef t : g.node(id).inputs()) {
        ++count_[size_t(t.node)];
        reader_[size_t(t.node)] = id;
      }
    for (TensorRef t : g.outputs()) count_[size_t(t.node)] += 2;  // never fused away
  }
  // The node that alone reads node `id`'s only output, or -1.
  NodeId only_reader(const Graph& g, NodeId id) const {
    if (g.node(id).num_outputs() != 1 || count_[size_t(id)] != 1) return -1;
    return reader_[size_t(id)];
  }

 private:
  std::vector<NodeId> reader_;
  std::vector<int> count_;
};

// The other input of a two-input node read from `from`, or nullopt when the
// node reads `from` twice.
std::optional<TensorRef> other_input(const Node& n, NodeId from) {
  const TensorRef a = n.inputs()[0], b = n.inputs()[1];
  if (a.node == from && b.node != from) return b;
  if (b.node == from && a.node != from) return a;
  return std::nullopt;
}

bool per_channel(const Graph& g, TensorRef t, int64_t channels) {
  const Shape& s = g.shape(t);
  if (s.rank() == 3) return s[0] == channels && s[1] == 1 && s[2] == 1;
  return s.rank() == 4 && s[0] == 1 && s[1] == channels && s[2] == 1 && s[3] == 1;
}

// Two groups may reach the same add (conv + bias on each side of a residual
// add): a node in an earlier group is not taken again, so the later group ends
// before it and its output stays held for the earlier one's sum.
ConvFusion grow(const Graph& g, const Uses& uses, const std::vector<bool>& weight_only,
                const std::vector<int>& taken, NodeId conv, bool (*fusable_activation)(const Node&)) {
  ConvFusion f;
  f.conv = conv;
  if (g.node(conv).params.activation != Activation::none) return f;  // its relu comes before any add
  const Shape& out = g.node(conv).output(0).shape;
  NodeId at = conv;
  auto free_reader = [&](NodeId id) {
    const NodeId r = uses.only_reader(g, id);
    return r >= 0 && taken[size_t(r)] < 0 ? r : NodeId(-1);
  };
  NodeId next = free_reader(conv);
  if (next >= 0 && g.node(next).op == OpType::ewadd) {
    std::optional<TensorRef> b = other_input(g.node(next), at);
    if (b && weight_only[size_t(b->node)] && per_channel(g, *b, out[1])) {
      f.bias = b;
      f.absorbed.push_back(at = next);
      next = free_reader(at);
    }
  }
  if (next >= 0 && g.node(next).op == OpType::ewadd && g.node(next).output(0).shape == out) {
    std::optional<TensorRef> r = other_input(g.node(next), at);
    if (r && g.shape(*r) == out) {
      f.residual = r;
      f.absorbed.push_back(at = next);
      next = free_reader(at);
    }
  }
  if (next >= 0 && fusable_activation(g.node(next))) {
    f.activation = next;
    f.absorbed.push_back(next);
  }
  return f;
}

}  // namespace

FusionPlan plan_conv_fusions(const Graph& g, const std::vector<bool>& weight_only,
                             bool (*fusable_activation)(const Node&)) {
  FusionPlan plan;
  plan.group_of.assign(size_t(g.num_nodes()), -1);
  const Uses uses(g);
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    if (g.node(id).op != OpType::conv2d || weight_only[size_t(id)] || plan.group_of[size_t(id)] >= 0)
      continue;
    ConvFusion f = grow(g, uses, weight_only, plan.group_of, id, fusable_activation);
    if (f.absorbed.empty()) continue;
    const int index = int(plan.groups.size());
    plan.group_of[size_t(id)] = index;
    for (NodeId n : f.absorbed) plan.group_of[size_t(n)] = index;
    plan.groups.push_back(std::move(f));
  }
  return plan;
}

}  // namespace superopt::cpu
