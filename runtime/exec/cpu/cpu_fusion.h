// Which neighbouring nodes the CPU executor runs as one convolution or matmul
// primitive (issue 34, item 2): the producer, the per-channel bias add after it
// (as the primitive's bias), a residual add (oneDNN's sum post-op) and an
// activation (an eltwise post-op), in that order, each the only consumer of the
// one before. Imported CNNs spell every convolution this way (conv, bias add,
// relu), ResNet blocks end in conv, bias, add, relu, and linear layers are
// matmul, bias add, activation.
#pragma once

#include <optional>
#include <vector>

#include "runtime/core/graph.h"

namespace superopt::cpu {

struct Fusion {
  NodeId producer = -1;               // the conv2d or matmul
  std::vector<NodeId> absorbed;       // the fused followers in order; the last one's output is the group's
  std::optional<TensorRef> bias;      // a weight along the output channels: conv [1,C,1,1], matmul [N]
  std::optional<TensorRef> residual;  // a tensor of the output's shape added after the bias (sum post-op)
  NodeId activation = -1;             // a unary operator run as an eltwise post-op
  NodeId last() const { return absorbed.empty() ? producer : absorbed.back(); }
};

struct FusionPlan {
  std::vector<Fusion> groups;
  std::vector<int> group_of;  // per node: the group it belongs to (its convolution or a follower), or -1
};

// The groups of graph g: only convolutions and matmuls that run (not
// weight-only) with at least one follower fused; a follower's input is never a graph output or read
// by another node. `fusable_activation` says which unary nodes the backend runs
// as a post-op.
FusionPlan plan_fusions(const Graph& g, const std::vector<bool>& weight_only,
                        bool (*fusable_activation)(const Node&));

}  // namespace superopt::cpu
