// Analyses of a whole graph that the cost models, the optimizer and the
// executors share: what is computed from weights alone (once, at load time),
// which operators run no kernel, and the peak memory of live activations.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/core/graph.h"

namespace superopt {

// For each node: true when it is a weight or a constant, or an operator whose
// inputs are all such nodes. Requires an acyclic graph.
std::vector<bool> weight_only_nodes(const Graph& g);

// The weight-only tensors that something running needs: those read by an
// operator that is not weight-only, and weight-only graph outputs; each once,
// in node order and then output order. Folding (search/) and the executors
// compute exactly these once and treat them as weights. Requires an acyclic graph.
std::vector<TensorRef> weight_only_frontier(const Graph& g, const std::vector<bool>& weight_only);

// Whether the node runs no kernel: a source (input, weight, constant) or a
// view of its input (OpInfo::view; reshape, a split into contiguous slices).
bool runs_no_kernel(const Graph& g, NodeId id);

// Peak bytes of live activations (4 bytes per element) when the nodes run in
// topological order: a node's outputs are allocated when it runs and freed
// after their last consumer, graph outputs are never freed, and weights and
// weight-only nodes are not counted. Views (reshape) count as new tensors: a
// simple, slightly pessimistic liveness. Throws Error on a cycle.
int64_t peak_activation_bytes(const Graph& g);

}  // namespace superopt
