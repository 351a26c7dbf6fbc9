// Graph codes: a small graph as the generator sees it (operators in canonical
// order over the opset's sources), a few bytes long, and its conversion to a Graph.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "enum/opset.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/graph.h"
#include "runtime/core/memory_budget.h"

namespace superopt::enumeration {

inline constexpr int kMaxCodeOps = 8;
inline constexpr int kMaxCodeInputs =
    3;  // the generator's operators take one to three inputs (a biased conv2d)

// Tensor ids of a code: 0..S-1 are the opset's sources, S + 2k + port is output
// `port` of operator k. They fit a byte for opsets of up to 239 sources.
inline int op_output_id(int num_sources, int op, int port) {
  return num_sources + 2 * op + port;
}

struct CodeOp {
  uint8_t variant = 0;  // index into Opset::operators
  uint8_t num_inputs = 0;
  std::array<uint8_t, kMaxCodeInputs> inputs{};  // tensor ids
  bool operator==(const CodeOp&) const = default;
};

// Operators in the order the generator added them.
struct GraphCode {
  std::vector<CodeOp> ops;

  // Bytes: the operator count, then per operator its variant and its inputs.
  // Arity comes from the opset, so it is not stored.
  void append_bytes(std::string& out) const;
  static GraphCode from_bytes(std::span<const uint8_t> bytes, const Opset& opset);
  bool operator==(const GraphCode&) const = default;
};

// The tensors no operator of the code reads (the graph's outputs), in id order.
std::vector<int> code_outputs(const GraphCode& code, const Opset& opset);

// The code as a Graph: used sources become inputs or weights named
// as in the opset, operators keep their order, outputs are code_outputs() in
// that order unless `outputs` gives the tensor ids. Throws Error if a shape
// does not fit (a code from another opset).
Graph code_to_graph(const GraphCode& code, const Opset& opset, const std::vector<int>* outputs = nullptr);

// An opset source as a node of g: an input or a weight with the source's name.
NodeId add_source(Graph& g, const OpsetSource& s);

// Seeded random values of every source, in opset order: what evaluate() gets
// from random_sources(ar, seed) for graphs over these sources.
template <class A>
std::vector<Tensor<typename A::Value>> source_values(const Opset& opset, const A& ar, uint64_t seed) {
  int64_t bytes = 0;
  for (const OpsetSource& s : opset.sources)
    bytes += s.shape.num_elements() * int64_t(sizeof(typename A::Value));
  check_memory_budget(bytes, "holding the operator set's sources");
  SourceValues<A> random = random_sources(ar, seed);
  Graph g;
  std::vector<Tensor<typename A::Value>> values;
  for (const OpsetSource& s : opset.sources) values.push_back(random(g, add_source(g, s)));
  return values;
}

// A readable one-line form: "matmul(x1, w1); relu(#0)".
std::string code_str(const GraphCode& code, const Opset& opset);

}  // namespace superopt::enumeration
