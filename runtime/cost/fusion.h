// Which neighbouring nodes the CPU executor runs as one convolution, matmul or
// pooling primitive (issue 34, item 2), and the signature their cost is measured
// under (item 1): a pad in front, the producer, the per-channel bias add after it
// (as the primitive's bias), a residual add (oneDNN's sum post-op) and an
// activation (an eltwise post-op), in that order, each the only consumer of the
// one before. Imported CNNs spell every convolution this way (conv, bias add,
// relu), ResNet blocks end in conv, bias, add, relu, and linear layers are
// matmul, bias add, activation.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/graph.h"

namespace superopt {

class CostModel;
struct CostUnit;

struct Fusion {
  NodeId producer = -1;               // the conv2d, matmul or linear
  std::vector<NodeId> absorbed;       // the fused followers in order; the last one's output is the group's
  std::optional<TensorRef> bias;      // a weight along the output channels: conv [1,C,1,1], matmul [N]
  std::optional<TensorRef> residual;  // a tensor of the output's shape added after the bias (sum post-op)
  NodeId activation = -1;             // a unary operator run as an eltwise post-op
  NodeId pad = -1;                    // a pad in front of the producer, folded into its window's padding
  NodeId last() const { return absorbed.empty() ? producer : absorbed.back(); }
};

struct FusionPlan {
  std::vector<Fusion> groups;
  std::vector<int> group_of;  // per node: the group it belongs to (its convolution or a follower), or -1
};

// The groups of graph g: only convolutions and matmuls that run (not
// weight-only) with at least one follower fused or a leading pad, and pools
// with a leading pad; a follower's input is never a graph output or read by
// another node, and neither is a leading pad's output. A leading pad pads the
// last two dimensions with the value the window's own padding has: zeros before
// a convolution or an average pool (which counts padding), -inf before a max
// pool (which ignores it). PyTorch's exports write a stride-2 convolution's or
// pool's symmetric padding this way (it is not our SAME window).
FusionPlan plan_fusions(const Graph& g, const std::vector<bool>& weight_only);

// The unary operators oneDNN runs as one eltwise post-op (relu, clip, sigmoid,
// tanh, hardswish, silu, gelu, sqrt).
bool fusable_activation(OpType op);

// The cost-table key of a group: the producer's op_signature and what it runs
// besides, e.g. "conv2d|...|1x64x56x56,64x64x3x3|row+bias+sum+relu|".
std::string fused_signature(const Graph& g, const Fusion& f);

// A graph's running nodes summed with each fusion group costed once by
// `group_ms` (its absorbed nodes then cost 0); a group `group_ms` has no cost
// for (nullopt) is summed node by node with model.node_cost_ms.
double fused_sum_ms(const Graph& g, const std::vector<bool>& weight_only, CostModel& model,
                    const std::function<std::optional<double>(const Graph&, const Fusion&)>& group_ms);

// The same over a plan made beforehand (plan_fusions(g, weight_only)), each
// node not in a costed group by `node_ms`: a model that plans a graph once for
// several uses (the CPU model's reorders) passes its plan.
double fused_sum_ms(const Graph& g, const std::vector<bool>& weight_only, const FusionPlan& plan,
                    const std::function<double(NodeId)>& node_ms,
                    const std::function<std::optional<double>(const Fusion&)>& group_ms);

// The entries fused_sum_ms adds (CostModel::graph_units): each group
// `group_unit` has an entry for once, every other running node (not
// weight-only, not a view or source) as `node_unit` gives it.
std::vector<CostUnit> fused_units(const Graph& g, const std::vector<bool>& weight_only,
                                  const FusionPlan& plan, const std::function<CostUnit(NodeId)>& node_unit,
                                  const std::function<std::optional<CostUnit>(const Fusion&)>& group_unit);

}  // namespace superopt
