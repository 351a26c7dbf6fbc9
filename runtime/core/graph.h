// The graph IR: a DAG of operator nodes joined by tensor edges, cheap to copy and edit.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/core/operator_registry.h"
#include "runtime/core/symbol.h"

namespace superopt {

using NodeId = int32_t;

// One output of one node.
struct TensorRef {
  NodeId node = -1;
  int32_t port = 0;
  bool operator==(const TensorRef&) const = default;
};

// Trivially copyable, so that copying a graph is a memcpy of its nodes.
struct Node {
  OpType op = OpType::input;
  int8_t num_inputs = 0;
  int32_t data = -1;  // weights: index of their values in Graph, or -1
  Symbol name;        // required for inputs and weights, optional otherwise
  OpParams params;
  std::array<TensorRef, kMaxInputs> input_array{};
  std::array<TensorDesc, kMaxOutputs> output_array{};

  std::span<const TensorRef> inputs() const { return {input_array.data(), size_t(num_inputs)}; }
  int num_outputs() const { return op_info(op).num_outputs; }
  const TensorDesc& output(int port) const { return output_array[port]; }
};
static_assert(std::is_trivially_copyable_v<Node>);

class Graph {
 public:
  // Building. add_* infer the new node's output shapes and throw Error when
  // its inputs do not fit; inputs must already be in the graph.
  NodeId add_input(std::string_view name, const Shape& shape);
  NodeId add_weight(std::string_view name, const Shape& shape, std::vector<float> data = {});
  NodeId add(OpType op, std::span<const TensorRef> inputs, const OpParams& params = {},
             std::string_view name = {});
  NodeId add(OpType op, std::initializer_list<TensorRef> inputs, const OpParams& params = {},
             std::string_view name = {}) {
    return add(op, std::span<const TensorRef>(inputs.begin(), inputs.size()), params, name);
  }
  // add for callers that expect misfits (rule instances at trial shapes):
  // nullopt instead of a throw when the inputs do not fit their shapes. Still
  // throws when an input is not a tensor of the graph.
  std::optional<NodeId> try_add(OpType op, std::span<const TensorRef> inputs, const OpParams& params);
  void add_output(TensorRef t);
  // Room for this many nodes, so that a graph built at its final size holds no
  // spare capacity (a rule database holds millions of small graphs).
  void reserve(int num_nodes) { nodes_.reserve(static_cast<size_t>(num_nodes)); }

  // Reading.
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const Node& node(NodeId id) const { return nodes_[id]; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<TensorRef>& outputs() const { return outputs_; }
  const TensorDesc& desc(TensorRef t) const { return nodes_[t.node].output(t.port); }
  const Shape& shape(TensorRef t) const { return desc(t).shape; }
  // The values of a weight given with data, or nullptr.
  const std::vector<float>* weight_data(NodeId id) const;
  std::optional<NodeId> find(std::string_view name) const;  // by node name
  // Number of operators: nodes other than inputs, weights and constants.
  int num_operators() const;

  // Editing. These do not re-infer shapes; call infer_shapes() afterwards.
  void set_input(NodeId id, int slot, TensorRef t);
  void replace_uses(TensorRef from, TensorRef to);  // in consumers and graph outputs
  void set_outputs(std::vector<TensorRef> outputs) { outputs_ = std::move(outputs); }
  // Removes nodes that no graph output depends on (inputs stay); renumbers.
  void remove_unused();

  // Analysis.
  // Node ids with every node after its inputs; nullopt when there is a cycle.
  std::optional<std::vector<NodeId>> topological_order() const;
  bool has_cycle() const { return !topological_order().has_value(); }
  // A cycle as a list of node ids (first == last), or empty.
  std::vector<NodeId> find_cycle() const;
  // Recomputes every node's outputs in topological order; throws Error on a
  // cycle or on a node whose inputs no longer fit.
  void infer_shapes();

 private:
  NodeId push(Node node);
  // The node add and try_add append, with in pointing at its inputs' descriptors
  // and its outputs not inferred yet; throws Error when it is malformed.
  Node make_node(OpType op, std::span<const TensorRef> inputs, const OpParams& params, std::string_view name,
                 std::array<const TensorDesc*, kMaxInputs>& in) const;

  std::vector<Node> nodes_;
  std::vector<TensorRef> outputs_;
  // Shared between copies: weight values are immutable once added.
  std::vector<std::shared_ptr<const std::vector<float>>> data_;
};

// Orders n items so that each comes after the items its inputs name, keeping
// the given order wherever it already is one (so files keep their order and
// writing is stable). Iterative, so long chains are fine. On a cycle, `cycle`
// lists it producers first, with first == last, and `order` is incomplete.
struct DependencyOrder {
  std::vector<int> order;
  std::vector<int> cycle;
};
DependencyOrder dependency_order(int n, const std::function<std::span<const TensorRef>(int)>& inputs_of);

// g rebuilt node by node with new shape parameters: new_shape(node) gives the
// shape of every node that takes one (inputs, weights, constants, reshape,
// opaque); every other shape is inferred again. Names, parameters, weight data
// and outputs are kept. Throws Error on a cycle or when a node no longer fits.
Graph with_shapes(const Graph& g, const std::function<Shape(const Node&)>& new_shape);

// A readable label for a tensor: the node's name (or "#id"), then ":port" if not 0.
std::string tensor_label(const Graph& g, TensorRef t);

}  // namespace superopt
