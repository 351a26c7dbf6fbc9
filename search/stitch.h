// Cutting a set of operators out of a graph as a graph of its own, and putting
// optimized parts back in their place.
#pragma once

#include <vector>

#include "runtime/core/graph.h"

namespace superopt::search {

// A part as a graph: tensors from outside the part that operators produce
// become inputs named "__part_in_K" (K indexes `inputs`); the model's inputs,
// weights and constants keep their names and values; the outputs are the
// part's tensors read outside it (or graph outputs), in `outputs` order.
struct Part {
  Graph graph;
  std::vector<TensorRef> inputs;   // tensors of the whole graph
  std::vector<TensorRef> outputs;  // tensors of the whole graph
};

// Throws Error when the part cannot stand alone (e.g. it splits a tensor whose
// concatenation stays outside).
Part extract_part(const Graph& g, const std::vector<NodeId>& nodes);

struct Stitched {
  Graph graph;
  std::vector<int> origin;  // per node of graph: index of the part it came from, or -1
};

// g with each part's nodes replaced by parts[i].graph (same inputs and outputs
// as extracted). The parts must be disjoint. Throws Error when the parts depend
// on each other in a cycle. Dead nodes are kept (origin stays aligned).
Stitched stitch(const Graph& g, const std::vector<std::vector<NodeId>>& part_nodes,
                const std::vector<Part>& parts);

}  // namespace superopt::search
