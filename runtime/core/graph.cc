// Building, editing and ordering graphs.
#include "runtime/core/graph.h"

#include <algorithm>
#include <string>

#include "runtime/core/error.h"

namespace superopt {

NodeId Graph::push(Node node) {
  nodes_.push_back(node);
  return static_cast<NodeId>(nodes_.size() - 1);
}

NodeId Graph::add_input(std::string_view name, const Shape& shape) {
  OpParams p;
  p.shape = shape;
  return add(OpType::input, {}, p, name);
}

NodeId Graph::add_weight(std::string_view name, const Shape& shape, std::vector<float> data) {
  OpParams p;
  p.shape = shape;
  if (!data.empty() && static_cast<int64_t>(data.size()) != shape.num_elements())
    throw Error("weight " + std::string(name) + ": " + std::to_string(data.size()) + " values for shape " +
                shape.str());
  NodeId id = add(OpType::weight, {}, p, name);
  if (!data.empty()) {
    nodes_[id].data = static_cast<int32_t>(data_.size());
    data_.push_back(std::make_shared<const std::vector<float>>(std::move(data)));
  }
  return id;
}

Node Graph::make_node(OpType op, std::span<const TensorRef> inputs, const OpParams& params,
                      std::string_view name, std::array<const TensorDesc*, kMaxInputs>& in) const {
  if (inputs.size() > kMaxInputs)
    throw Error(std::string(op_name(op)) + ": more than " + std::to_string(kMaxInputs) + " inputs");
  Node n;
  n.op = op;
  n.params = params;
  n.name = Symbol(name);
  n.num_inputs = static_cast<int8_t>(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    TensorRef t = inputs[i];
    if (t.node < 0 || t.node >= num_nodes() || t.port < 0 || t.port >= nodes_[t.node].num_outputs())
      throw Error(std::string(op_name(op)) + ": input " + std::to_string(i) +
                  " is not a tensor of the graph");
    n.input_array[i] = t;
    in[i] = &desc(t);
  }
  if ((op == OpType::input || op == OpType::weight) && n.name.empty())
    throw Error(std::string(op_name(op)) + ": needs a name");
  return n;
}

NodeId Graph::add(OpType op, std::span<const TensorRef> inputs, const OpParams& params,
                  std::string_view name) {
  std::array<const TensorDesc*, kMaxInputs> in{};
  Node n = make_node(op, inputs, params, name, in);
  infer_outputs(op, params, std::span(in.data(), inputs.size()),
                std::span(n.output_array.data(), size_t(n.num_outputs())));
  return push(n);
}

std::optional<NodeId> Graph::try_add(OpType op, std::span<const TensorRef> inputs, const OpParams& params) {
  std::array<const TensorDesc*, kMaxInputs> in{};
  Node n = make_node(op, inputs, params, {}, in);
  if (!try_infer_outputs(op, params, std::span(in.data(), inputs.size()),
                         std::span(n.output_array.data(), size_t(n.num_outputs())))
           .fits)
    return std::nullopt;
  return push(n);
}

void Graph::add_output(TensorRef t) {
  if (t.node < 0 || t.node >= num_nodes() || t.port < 0 || t.port >= nodes_[t.node].num_outputs())
    throw Error("graph output is not a tensor of the graph");
  outputs_.push_back(t);
}

const std::vector<float>* Graph::weight_data(NodeId id) const {
  int32_t d = nodes_[id].data;
  return d >= 0 ? data_[d].get() : nullptr;
}

std::optional<NodeId> Graph::find(std::string_view name) const {
  for (NodeId i = 0; i < num_nodes(); ++i)
    if (nodes_[i].name.str() == name) return i;
  return std::nullopt;
}

int Graph::num_operators() const {
  return static_cast<int>(std::count_if(nodes_.begin(), nodes_.end(), [](const Node& n) {
    return n.op != OpType::input && n.op != OpType::weight && !is_constant(n.op);
  }));
}

void Graph::set_input(NodeId id, int slot, TensorRef t) {
  Node& n = nodes_[id];
  if (slot < 0 || slot >= n.num_inputs) throw Error("set_input: no input slot " + std::to_string(slot));
  n.input_array[slot] = t;
}

void Graph::replace_uses(TensorRef from, TensorRef to) {
  for (Node& n : nodes_)
    for (int i = 0; i < n.num_inputs; ++i)
      if (n.input_array[i] == from) n.input_array[i] = to;
  for (TensorRef& t : outputs_)
    if (t == from) t = to;
}

void Graph::remove_unused() {
  std::vector<char> live(nodes_.size(), 0);
  std::vector<NodeId> stack;
  for (TensorRef t : outputs_) stack.push_back(t.node);
  for (NodeId i = 0; i < num_nodes(); ++i)
    if (nodes_[i].op == OpType::input) stack.push_back(i);
  while (!stack.empty()) {
    NodeId n = stack.back();
    stack.pop_back();
    if (live[n]) continue;
    live[n] = 1;
    for (TensorRef t : nodes_[n].inputs()) stack.push_back(t.node);
  }
  std::vector<NodeId> renumber(nodes_.size(), -1);
  std::vector<Node> kept;
  for (NodeId i = 0; i < num_nodes(); ++i)
    if (live[i]) {
      renumber[i] = static_cast<NodeId>(kept.size());
      kept.push_back(nodes_[i]);
    }
  for (Node& n : kept)
    for (int i = 0; i < n.num_inputs; ++i) n.input_array[i].node = renumber[n.input_array[i].node];
  for (TensorRef& t : outputs_) t.node = renumber[t.node];
  nodes_ = std::move(kept);
}

std::optional<std::vector<NodeId>> Graph::topological_order() const {
  DependencyOrder d = dependency_order(num_nodes(), [&](int id) { return nodes_[id].inputs(); });
  if (!d.cycle.empty()) return std::nullopt;
  return std::move(d.order);
}

std::vector<NodeId> Graph::find_cycle() const {
  return dependency_order(num_nodes(), [&](int id) { return nodes_[id].inputs(); }).cycle;
}

void Graph::infer_shapes() {
  auto order = topological_order();
  if (!order) throw Error("graph has a cycle");
  for (NodeId id : *order) {
    Node& n = nodes_[id];
    std::array<const TensorDesc*, kMaxInputs> in{};
    for (int i = 0; i < n.num_inputs; ++i) in[i] = &desc(n.input_array[i]);
    infer_outputs(n.op, n.params, std::span(in.data(), size_t(n.num_inputs)),
                  std::span(n.output_array.data(), size_t(n.num_outputs())));
  }
}

DependencyOrder dependency_order(int n, const std::function<std::span<const TensorRef>(int)>& inputs_of) {
  // Depth-first post-order from each root in turn; an input found still open closes a cycle.
  enum : char { unseen, open, done };
  std::vector<char> state(n, unseen);
  DependencyOrder result;
  result.order.reserve(n);
  std::vector<std::pair<int, size_t>> stack;  // item, next input to visit
  for (int root = 0; root < n; ++root) {
    if (state[root] != unseen) continue;
    state[root] = open;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto [item, next] = stack.back();
      std::span<const TensorRef> inputs = inputs_of(item);
      if (next == inputs.size()) {
        state[item] = done;
        result.order.push_back(item);
        stack.pop_back();
        continue;
      }
      ++stack.back().second;
      int m = inputs[next].node;
      if (state[m] == done) continue;
      if (state[m] == unseen) {
        state[m] = open;
        stack.push_back({m, 0});
        continue;
      }
      // Each stack entry reads the next one: walking back from the top lists producers first.
      result.cycle.push_back(m);
      for (size_t k = stack.size(); k-- > 0 && stack[k].first != m;) result.cycle.push_back(stack[k].first);
      result.cycle.push_back(m);
      return result;
    }
  }
  return result;
}

std::string tensor_label(const Graph& g, TensorRef t) {
  const Node& n = g.node(t.node);
  // Appending, not operator+: GCC 12 warns falsely (-Wrestrict) on "#" + string.
  std::string s = n.name.empty() ? std::string("#") : n.name.str();
  if (n.name.empty()) s += std::to_string(t.node);
  if (t.port) s.append(":").append(std::to_string(t.port));
  return s;
}

Graph with_shapes(const Graph& g, const std::function<Shape(const Node&)>& new_shape) {
  auto order = g.topological_order();
  if (!order) throw Error("graph has a cycle");
  Graph out;
  std::vector<NodeId> renumber(g.num_nodes(), -1);
  for (NodeId id : *order) {
    const Node& n = g.node(id);
    const std::string name = n.name.str();
    if (n.op == OpType::input) {
      renumber[id] = out.add_input(name, new_shape(n));
    } else if (n.op == OpType::weight) {
      const std::vector<float>* data = g.weight_data(id);
      renumber[id] = out.add_weight(name, new_shape(n), data ? *data : std::vector<float>{});
    } else {
      OpParams p = n.params;
      if (op_info(n.op).takes(Param::shape)) p.shape = new_shape(n);
      std::vector<TensorRef> inputs;
      for (const TensorRef& t : n.inputs()) inputs.push_back({renumber[t.node], t.port});
      renumber[id] = out.add(n.op, inputs, p, name);
    }
  }
  for (const TensorRef& t : g.outputs()) out.add_output({renumber[t.node], t.port});
  return out;
}

}  // namespace superopt
