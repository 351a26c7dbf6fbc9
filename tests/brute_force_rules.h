// A brute-force rule finder for the generator's completeness test: every graph
// of up to N operators over an operator set, under every naming of its
// sources and in every operator order, grouped by the values it computes.
// Nothing here comes from enum/'s generator (no canonical forms, no class
// keys): it shares only the operator set, the registry and the kernels.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "enum/opset.h"
#include "runtime/core/graph.h"

namespace superopt::test {

// Tensor ids: the opset's sources are 0..S-1, port p of operator k is S + 2k + p.
struct BruteOp {
  int variant = 0;  // index into Opset::operators
  int num_inputs = 0;
  std::array<int, 2> inputs{};
};
struct BruteGraph {
  std::vector<BruteOp> ops;
};

// The tensors no operator reads, in id order.
std::vector<int> brute_outputs(const BruteGraph& g, const enumeration::Opset& opset);
// "ewadd(x1, x2); relu(#0)".
std::string brute_str(const BruteGraph& g, const enumeration::Opset& opset);
// The graph as a runtime Graph (sources named as in the opset).
Graph brute_to_graph(const BruteGraph& g, const enumeration::Opset& opset);
// A rule side read back from a database; throws if an operator is not in the opset.
BruteGraph brute_from_graph(const Graph& g, const enumeration::Opset& opset);

// A structural hash of every tensor: a source by rename[source], an operator
// by its variant and its inputs (a commutative operator's inputs unordered).
std::vector<uint64_t> brute_tensor_structures(const BruteGraph& g, const enumeration::Opset& opset,
                                              const std::vector<int>& rename);
// Equal for one graph over the same names in any operator order: its outputs' structures as a multiset.
uint64_t brute_structure(const BruteGraph& g, const enumeration::Opset& opset,
                         const std::vector<int>& rename);
std::vector<int> identity_naming(const enumeration::Opset& opset);

struct BruteForce {
  std::vector<BruteGraph> graphs;  // each graph once (whatever its operator order)
  // Per graph and tensor id, a hash of the tensor's values (sources too).
  std::vector<std::vector<uint64_t>> value_hashes;
  // Graphs computing the same values, two or more, checked in double as well.
  std::vector<std::vector<int>> classes;
};

// Every graph of 1 to max_ops operators within the opset's rules (shapes,
// ranks, element-wise operands of one shape, sources-only operators, a
// convolution's kernel computed from weights and its data from an input,
// merge_groups on weights), leaving out graphs with two equal tensors (a
// longer way of writing a smaller graph, which the generator leaves out too).
BruteForce brute_force(const enumeration::Opset& opset, int max_ops);

}  // namespace superopt::test
