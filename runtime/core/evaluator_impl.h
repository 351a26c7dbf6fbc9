// The evaluator's templates, for the files that instantiate them: evaluator.cc
// (modular and real arithmetic) and symbolic_evaluator.cc (Z3 terms), so that
// only the symbolic target links Z3. Everyone else includes evaluator.h.
#pragma once

#include <array>
#include <optional>
#include <random>
#include <span>
#include <string>

#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/hashing.h"
#include "runtime/core/kernels.h"

namespace superopt {
namespace evaluator_detail {

// Guards the kernels, which trust their output descriptors, against a graph edited
// without infer_shapes(): the stored outputs must be what the inputs give now.
void check_node_outputs(const Graph& g, NodeId id);

// Readers of each node's outputs, plus one for each graph output that keeps it alive.
std::vector<int> count_uses(const Graph& g);

// From shapes alone, before anything is allocated: the bytes of the tensors live
// at each step of evaluate() (freed as it frees them), against the memory
// budget (memory_budget.h). Throws Error naming the node where it is exceeded.
void check_evaluation_memory(const Graph& g, const std::vector<NodeId>& order, int64_t value_bytes);

template <class A>
std::vector<TensorOf<A>> source_value(const Graph& g, NodeId id, const SourceValues<A>& sources) {
  const Node& n = g.node(id);
  std::vector<TensorOf<A>> result;
  result.push_back(sources(g, id));
  if (result[0].shape != n.output(0).shape || result[0].size() != n.output(0).shape.num_elements())
    throw Error("value of " + std::string(op_name(n.op)) + " " + n.name.str() + " has shape " +
                result[0].shape.str() + ", the graph says " + n.output(0).shape.str());
  return result;
}

template <class A>
std::vector<TensorOf<A>> node_value(const Graph& g, const A& ar, const SourceValues<A>& sources, NodeId id,
                                    const std::vector<std::vector<TensorOf<A>>>& values) {
  const Node& n = g.node(id);
  if (n.op == OpType::input || n.op == OpType::weight) return source_value<A>(g, id, sources);
  check_node_outputs(g, id);
  std::array<const TensorOf<A>*, kMaxInputs> in{};
  for (int i = 0; i < n.num_inputs; ++i) {
    TensorRef t = n.inputs()[i];
    in[i] = &values[t.node][t.port];
  }
  return run_op(ar, n.op, n.params, std::span<const TensorOf<A>* const>(in.data(), n.inputs().size()),
                std::span<const TensorDesc>(n.output_array.data(), static_cast<size_t>(n.num_outputs())));
}

}  // namespace evaluator_detail

template <class A>
std::vector<TensorOf<A>> evaluate(const Graph& g, const A& ar, const SourceValues<A>& sources,
                                  const BeforeOperator& before_operator) {
  std::optional<std::vector<NodeId>> order = g.topological_order();
  if (!order) throw Error("cannot evaluate a graph with a cycle");
  evaluator_detail::check_evaluation_memory(g, *order, sizeof(typename A::Value));
  std::vector<int> uses = evaluator_detail::count_uses(g);
  std::vector<std::vector<TensorOf<A>>> values(g.num_nodes());
  int64_t operators_done = 0;
  for (NodeId id : *order) {
    const OpType op = g.node(id).op;
    if (before_operator && op != OpType::input && op != OpType::weight) before_operator(operators_done++);
    values[id] = evaluator_detail::node_value(g, ar, sources, id, values);
    for (TensorRef t : g.node(id).inputs())
      if (--uses[t.node] == 0) values[t.node].clear();
    if (uses[id] == 0) values[id].clear();  // nothing reads it
  }
  std::vector<TensorOf<A>> outputs;
  for (TensorRef t : g.outputs()) outputs.push_back(values[t.node][t.port]);
  return outputs;
}

template <class A>
SourceValues<A> random_sources(const A& ar, uint64_t seed) {
  return [ar, seed](const Graph& g, NodeId id) {
    const Node& n = g.node(id);
    if (n.op != OpType::input && n.op != OpType::weight)
      throw Error("random_sources: node " + tensor_label(g, {id, 0}) + " is not an input or a weight");
    const Shape& shape = n.output(0).shape;
    using V = typename A::Value;
    std::vector<V> values;
    values.reserve(static_cast<size_t>(shape.num_elements()));
    if constexpr (A::is_real) {
      if (const std::vector<float>* data = g.weight_data(id)) {
        for (float x : *data) values.push_back(static_cast<V>(x));
        return TensorOf<A>(shape, std::move(values));
      }
    }
    std::mt19937_64 rng(hash_string(n.name.str(), seed));
    for (int64_t i = 0; i < shape.num_elements(); ++i) values.push_back(ar.random(rng));
    return TensorOf<A>(shape, std::move(values));
  };
}

#define SUPEROPT_INSTANTIATE_EVALUATOR(A)                                                       \
  template std::vector<TensorOf<A>> evaluate<A>(const Graph&, const A&, const SourceValues<A>&, \
                                                const BeforeOperator&);                         \
  template SourceValues<A> random_sources<A>(const A&, uint64_t);

}  // namespace superopt
