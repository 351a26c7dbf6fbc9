// Canonical structural hashing of graphs: independent of node numbering and
// insertion order, with an exact equality check for when hashes collide.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/core/graph.h"

namespace superopt {

// Hash of each node's whole computation: its operator, parameters, name (for
// inputs, weights and opaque operators, whose identity is their name) and the
// hashes and ports of its inputs. Requires an acyclic graph.
std::vector<uint64_t> node_hashes(const Graph& g);

// Hash of the multiset of node computations and of the ordered outputs.
uint64_t canonical_hash(const Graph& g);

// True when the graphs compute the same operator trees: their outputs are
// pairwise the same computation and they hold the same multiset of node
// computations. Exact (no hashing assumptions); both graphs must be acyclic.
bool structurally_equal(const Graph& a, const Graph& b);

// Hash of the ordered outputs' computations alone: the same for graphs that
// differ only in what they share (a computation made twice, or once and read
// twice), which canonical_hash tells apart.
uint64_t outputs_hash(const Graph& g);

// Both hashes from one pass over the nodes.
struct GraphHashes {
  uint64_t canonical;  // canonical_hash
  uint64_t outputs;    // outputs_hash
};
GraphHashes graph_hashes(const Graph& g);

// True when the outputs are pairwise the same operator tree: the graphs
// compute the same function, however much of it they share. Exact; both
// graphs must be acyclic. Derivations meet by it (verify/README.md).
bool same_outputs(const Graph& a, const Graph& b);

}  // namespace superopt
