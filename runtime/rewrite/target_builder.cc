// Building a rule side over a graph's tensors (see target_builder.h).
#include "runtime/rewrite/target_builder.h"

#include <functional>
#include <optional>

#include "runtime/rewrite/size_family.h"

namespace superopt {
namespace {

// The model shape of a target constant, from the first non-constant input of
// the operator reading it; nullopt when it cannot be derived.
std::optional<Shape> constant_shape(const Graph& g, const PatternNode& constant, OpType consumer, int slot,
                                    const std::vector<TensorRef>& consumer_inputs) {
  const TensorRef* other = nullptr;
  for (size_t i = 0; i < consumer_inputs.size(); ++i)
    if (int(i) != slot && consumer_inputs[i].node >= 0) other = &consumer_inputs[i];
  if (!other) return std::nullopt;
  const Shape& o = g.shape(*other);
  const Shape& rule = constant.rule_shapes[0];
  switch (constant.op) {
    case OpType::i_conv:
    case OpType::c_pool: {
      if (consumer != OpType::conv2d || slot != 1 || o.rank() != 4) break;
      int64_t c = o[1];
      if (constant.op == OpType::c_pool || rule[1] == 1) return Shape{c, 1, rule[2], rule[3]};
      if (rule[0] == rule[1]) return Shape{c, c, rule[2], rule[3]};
      break;
    }
    case OpType::i_matmul: {
      if (consumer != OpType::matmul || o.rank() < 2) break;
      int64_t n = slot == 1 ? o.back(0) : o.back(1);
      Shape s;
      for (int i = 0; i + 2 < rule.rank(); ++i) s.push_back(o[i]);
      s.push_back(n);
      s.push_back(n);
      return s;
    }
    default:
      break;
  }
  if (constant.op == OpType::i_ewmul || o.rank() == rule.rank()) return o;
  return std::nullopt;
}

// merge_groups' parameters at an occurrence: `groups` from the convolution that
// reads the merged kernel (its input channels / the kernel's dimension 1), `into`
// keeping the rule's ratio. nullopt when there is no such convolution, its input
// is not built yet, or the ratio does not divide.
std::optional<OpParams> merge_params(const Graph& g, const Pattern& target, int merge_node,
                                     const Shape& kernel, const std::function<TensorRef(PatternTensor)>& at) {
  const OpParams& rule = target.nodes[merge_node].params();
  for (const PatternNode& n : target.nodes) {
    if (n.op != OpType::conv2d || !(n.inputs[1] == PatternTensor{merge_node, 0})) continue;
    TensorRef x = at(n.inputs[0]);
    if (x.node < 0) return std::nullopt;
    const Shape& xs = g.shape(x);
    if (xs.rank() != 4 || xs[1] % kernel[1] != 0) return std::nullopt;
    const int64_t groups = xs[1] / kernel[1], count = rule.groups / rule.into;
    if (groups % count != 0) return std::nullopt;
    OpParams p = rule;
    p.groups = static_cast<int32_t>(groups);
    p.into = static_cast<int32_t>(groups / count);
    return p;
  }
  return std::nullopt;
}

}  // namespace

std::string_view failure_name(RewriteFailure f) {
  switch (f) {
    case RewriteFailure::none:
      return "none";
    case RewriteFailure::shapes:
      return "shapes do not fit";
    case RewriteFailure::constant_shape:
      return "a constant's shape cannot be derived";
    case RewriteFailure::derived_params:
      return "merge_groups' parameters cannot be derived";
    case RewriteFailure::cycle:
      return "the result would have a cycle";
  }
  return "?";
}

TargetBuilder::TargetBuilder(Graph& g, const Match& m, const Pattern& side, bool derive_merge_params)
    : g_(g), m_(m), t_(side), derive_merge_params_(derive_merge_params) {
  built_.assign(t_.nodes.size() * kMaxOutputs, TensorRef{-1, 0});
  // Variables are tensors of the graph already, so every node may read them.
  for (size_t i = 0; i < t_.nodes.size(); ++i)
    if (t_.nodes[i].kind == PatternKind::variable)
      built_[i * kMaxOutputs] = m_.variables[t_.nodes[i].variable];
}

RewriteFailure TargetBuilder::build() {
  // Outside the rule's size family the rule was never proven (size_family.h).
  if (!sizes_fit_family(t_, g_, m_.variables)) return RewriteFailure::shapes;
  for (size_t i = 0; i < t_.nodes.size(); ++i) {
    const PatternNode& n = t_.nodes[i];
    if (n.kind != PatternKind::op) continue;
    std::vector<TensorRef> in;
    for (PatternTensor t : n.inputs)
      in.push_back(t_.nodes[t.node].kind == PatternKind::constant ? TensorRef{-1, 0} : at(t));
    for (size_t slot = 0; slot < in.size(); ++slot) {
      if (in[slot].node >= 0) continue;
      PatternTensor c = n.inputs[slot];
      if (at(c).node < 0) {
        std::optional<Shape> shape = constant_shape(g_, t_.nodes[c.node], n.op, int(slot), in);
        if (!shape) return RewriteFailure::constant_shape;
        OpParams p;
        p.shape = *shape;
        std::optional<NodeId> id = g_.try_add(t_.nodes[c.node].op, {}, p);
        if (!id) return RewriteFailure::shapes;
        if (!shapes_fit(t_.nodes[c.node].facts, g_, g_.node(*id))) return RewriteFailure::constant_shape;
        built_[c.node * kMaxOutputs] = {*id, 0};
      }
      in[slot] = at(c);
    }
    OpParams params = n.params();
    if (n.op == OpType::merge_groups && derive_merge_params_ && g_.shape(in[0]).rank() == 4) {
      auto derived = merge_params(g_, t_, int(i), g_.shape(in[0]), [&](PatternTensor t) { return at(t); });
      if (!derived) return RewriteFailure::derived_params;
      params = *derived;
    }
    std::optional<NodeId> id = g_.try_add(n.op, in, params);
    // The side is true for the shapes it was found at: a built node outside
    // its family (a broadcast where the rule had equal shapes, another group
    // count) is not an instance of it.
    if (!id || !shapes_fit(n.facts, g_, g_.node(*id))) return RewriteFailure::shapes;
    for (int port = 0; port < g_.node(*id).num_outputs(); ++port)
      built_[i * kMaxOutputs + port] = {*id, port};
  }
  return RewriteFailure::none;
}

}  // namespace superopt
