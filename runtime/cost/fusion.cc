// The CPU executor's fusion groups and their signatures (see fusion.h).
#include "runtime/cost/fusion.h"

#include <limits>

#include "runtime/core/graph_analysis.h"
#include "runtime/cost/cost_model.h"

namespace superopt {
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

// A bias the producer's primitive adds itself: a weight that varies along the
// output channels only (conv2d: [C,1,1] or [1,C,1,1]; matmul: [N] or
// [1,...,1,N] of at most the output's rank).
bool is_bias(const Graph& g, const Node& producer, TensorRef t) {
  const Shape& s = g.shape(t);
  const Shape& out = producer.output(0).shape;
  if (producer.op == OpType::conv2d) {
    if (s.rank() == 3) return s[0] == out[1] && s[1] == 1 && s[2] == 1;
    return s.rank() == 4 && s[0] == 1 && s[1] == out[1] && s[2] == 1 && s[3] == 1;
  }
  if (s.rank() < 1 || s.rank() > out.rank() || s[s.rank() - 1] != out[out.rank() - 1]) return false;
  for (int i = 0; i + 1 < s.rank(); ++i)
    if (s[i] != 1) return false;
  return true;
}

// Two groups may reach the same add (conv + bias on each side of a residual
// add): a node in an earlier group is not taken again, so the later group ends
// before it and its output stays held for the earlier one's sum.
Fusion grow(const Graph& g, const Uses& uses, const std::vector<bool>& weight_only,
            const std::vector<int>& taken, NodeId producer) {
  Fusion f;
  f.producer = producer;
  const Node& p = g.node(producer);
  if ((p.op == OpType::conv2d || p.op == OpType::linear) && p.params.activation != Activation::none)
    return f;  // its activation precedes any add
  const Shape& out = p.output(0).shape;
  NodeId at = producer;
  auto free_reader = [&](NodeId id) {
    const NodeId r = uses.only_reader(g, id);
    return r >= 0 && taken[size_t(r)] < 0 ? r : NodeId(-1);
  };
  NodeId next = free_reader(producer);
  // A convolution with a bias input of its own, or a linear layer, takes no second one.
  const bool biased = (p.op == OpType::conv2d && p.num_inputs == 3) || p.op == OpType::linear;
  if (!biased && next >= 0 && g.node(next).op == OpType::ewadd && g.node(next).output(0).shape == out) {
    std::optional<TensorRef> b = other_input(g.node(next), at);
    if (b && weight_only[size_t(b->node)] && is_bias(g, p, *b)) {
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
  if (next >= 0 && fusable_activation(g.node(next).op)) {
    f.activation = next;
    f.absorbed.push_back(next);
  }
  return f;
}

// The pad in front of `producer`'s source that its window can take over, or -1.
NodeId leading_pad(const Graph& g, const Uses& uses, const std::vector<bool>& weight_only, NodeId producer) {
  const Node& p = g.node(producer);
  const NodeId pad = p.inputs()[0].node;
  const Node& n = g.node(pad);
  if (n.op != OpType::pad || weight_only[size_t(pad)] || uses.only_reader(g, pad) != producer ||
      g.shape(p.inputs()[0]).rank() != 4)
    return -1;
  for (int32_t rows : n.params.pads)
    if (rows < 0) return -1;
  const float value = n.params.value;
  const bool fits =
      p.op == OpType::pool_max ? value == -std::numeric_limits<float>::infinity() : value == 0.f;
  return fits ? pad : -1;
}

}  // namespace

FusionPlan plan_fusions(const Graph& g, const std::vector<bool>& weight_only) {
  FusionPlan plan;
  plan.group_of.assign(size_t(g.num_nodes()), -1);
  const Uses uses(g);
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const OpType op = g.node(id).op;
    const bool pool = op == OpType::pool_max || op == OpType::pool_avg;
    const bool product = op == OpType::matmul || op == OpType::linear;
    if ((op != OpType::conv2d && !product && !pool) || weight_only[size_t(id)] ||
        plan.group_of[size_t(id)] >= 0)
      continue;
    Fusion f;
    f.producer = id;
    if (!pool) f = grow(g, uses, weight_only, plan.group_of, id);
    if (!product) f.pad = leading_pad(g, uses, weight_only, id);
    if (f.absorbed.empty() && f.pad < 0) continue;
    const int index = int(plan.groups.size());
    plan.group_of[size_t(id)] = index;
    for (NodeId n : f.absorbed) plan.group_of[size_t(n)] = index;
    if (f.pad >= 0) plan.group_of[size_t(f.pad)] = index;
    plan.groups.push_back(std::move(f));
  }
  return plan;
}

bool fusable_activation(OpType op) {
  switch (op) {
    case OpType::relu:
    case OpType::clip:
    case OpType::sigmoid:
    case OpType::tanh:
    case OpType::hardswish:
    case OpType::silu:
    case OpType::gelu:
    case OpType::relu6:
    case OpType::sqrt:
    case OpType::exp:
      return true;
    default:
      return false;
  }
}

std::string fused_signature(const Graph& g, const Fusion& f) {
  std::string s = op_signature(g, f.producer);
  if (f.pad >= 0) {
    const Node& pad = g.node(f.pad);
    s.append("+pad ").append(params_str(pad.op, pad.params));
  }
  if (f.bias) s.append("+bias");
  if (f.residual) s.append("+sum");
  if (f.activation >= 0) {
    const Node& a = g.node(f.activation);
    s.append("+").append(op_name(a.op));
    const std::string params = params_str(a.op, a.params);
    if (!params.empty()) s.append(" ").append(params);
  }
  return s;
}

double fused_sum_ms(const Graph& g, const std::vector<bool>& weight_only, CostModel& model,
                    const std::function<std::optional<double>(const Graph&, const Fusion&)>& group_ms) {
  return fused_sum_ms(
      g, weight_only, plan_fusions(g, weight_only), [&](NodeId id) { return model.node_cost_ms(g, id); },
      [&](const Fusion& f) { return group_ms(g, f); });
}

namespace {

// What a graph's sum adds, in node order: each group that `group_entry` gives an
// entry for once (at its producer), every other node (not weight-only; nor a
// view or source where `skip_views`) as `node_entry` gives it.
template <typename Entry>
std::vector<Entry> fused_entries(const Graph& g, const std::vector<bool>& weight_only, const FusionPlan& plan,
                                 bool skip_views, const std::function<Entry(NodeId)>& node_entry,
                                 const std::function<std::optional<Entry>(const Fusion&)>& group_entry) {
  std::vector<std::optional<Entry>> fused(plan.groups.size());
  for (size_t i = 0; i < plan.groups.size(); ++i) fused[i] = group_entry(plan.groups[i]);
  std::vector<Entry> entries;
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    if (weight_only[size_t(id)] || (skip_views && runs_no_kernel(g, id))) continue;
    const int group = plan.group_of[size_t(id)];
    if (group < 0 || !fused[size_t(group)])
      entries.push_back(node_entry(id));
    else if (plan.groups[size_t(group)].producer == id)
      entries.push_back(*fused[size_t(group)]);
  }
  return entries;
}

}  // namespace

double fused_sum_ms(const Graph& g, const std::vector<bool>& weight_only, const FusionPlan& plan,
                    const std::function<double(NodeId)>& node_ms,
                    const std::function<std::optional<double>(const Fusion&)>& group_ms) {
  double total_ms = 0;
  for (double ms : fused_entries<double>(g, weight_only, plan, false, node_ms, group_ms)) total_ms += ms;
  return total_ms;
}

std::vector<CostUnit> fused_units(const Graph& g, const std::vector<bool>& weight_only,
                                  const FusionPlan& plan, const std::function<CostUnit(NodeId)>& node_unit,
                                  const std::function<std::optional<CostUnit>(const Fusion&)>& group_unit) {
  return fused_entries<CostUnit>(g, weight_only, plan, true, node_unit, group_unit);
}

}  // namespace superopt
