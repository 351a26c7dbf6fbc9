// Building a rule's target in a copy of the graph and rewiring the matched outputs.
#include "runtime/rewrite/rewrite.h"

#include <algorithm>
#include <functional>

#include "runtime/core/error.h"

namespace superopt {
namespace {

std::string ops_list(const Pattern& p) {
  std::string s;
  for (const PatternNode& n : p.nodes) {
    if (n.kind == PatternKind::variable) continue;
    if (!s.empty()) s += ",";
    s += op_name(n.op);
  }
  return s.empty() ? "(inputs)" : s;
}

std::optional<DirectedRule> direct(const Rule& rule, int index, bool reversed) {
  const Graph& from = reversed ? rule.target : rule.source;
  const Graph& to = reversed ? rule.source : rule.target;
  DirectedRule d;
  d.rule = index;
  d.reversed = reversed;
  d.source = compile_pattern(from);
  size_t source_variables = d.source.variable_names.size();
  d.target = compile_pattern(to, d.source.variable_names);
  if (unmatchable_reason(d.source) || d.target.variable_names.size() != source_variables ||
      d.source.outputs.size() != d.target.outputs.size())
    return std::nullopt;
  for (PatternTensor t : d.source.outputs)
    if (d.source.nodes[t.node].kind != PatternKind::op) return std::nullopt;  // nothing to replace
  for (PatternTensor t : d.target.outputs)
    if (d.target.nodes[t.node].kind == PatternKind::constant) return std::nullopt;  // no shape to derive from
  mark_group_scaling(d.source, d.target);
  d.label = std::to_string(index) + (reversed ? "<" : ">") + ": " + ops_list(d.source) + " -> " +
            ops_list(d.target);
  return d;
}

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
  const OpParams& rule = target.nodes[merge_node].params;
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

// Whether some matched operator is an ancestor of a variable's tensor: the new
// target would read what the replaced outputs feed, a cycle (TASO Figure 6).
bool creates_cycle(const Graph& g, const Match& m, const Pattern& source) {
  std::vector<char> is_matched(g.num_nodes(), 0), seen(g.num_nodes(), 0);
  for (size_t i = 0; i < source.nodes.size(); ++i)
    if (source.nodes[i].kind == PatternKind::op) is_matched[m.nodes[i]] = 1;
  std::vector<NodeId> stack;
  for (TensorRef v : m.variables)
    if (v.node >= 0) stack.push_back(v.node);
  while (!stack.empty()) {
    NodeId id = stack.back();
    stack.pop_back();
    if (seen[id]) continue;
    seen[id] = 1;
    if (is_matched[id]) return true;
    for (TensorRef t : g.node(id).inputs()) stack.push_back(t.node);
  }
  return false;
}

class TargetBuilder {
 public:
  TargetBuilder(Graph& g, const Match& m, const Pattern& target) : g_(g), m_(m), t_(target) {
    built_.assign(t_.nodes.size() * kMaxOutputs, TensorRef{-1, 0});
    // Variables are tensors of the graph already, so every node may read them.
    for (size_t i = 0; i < t_.nodes.size(); ++i)
      if (t_.nodes[i].kind == PatternKind::variable)
        built_[i * kMaxOutputs] = m_.variables[t_.nodes[i].variable];
  }

  // Throws Error when an operator's inputs do not fit.
  RewriteFailure build() {
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
          built_[c.node * kMaxOutputs] = {g_.add(t_.nodes[c.node].op, {}, p), 0};
        }
        in[slot] = at(c);
      }
      OpParams params = n.params;
      if (n.op == OpType::merge_groups && g_.shape(in[0]).rank() == 4) {
        auto derived = merge_params(g_, t_, int(i), g_.shape(in[0]), [&](PatternTensor t) { return at(t); });
        if (!derived) return RewriteFailure::derived_params;
        params = *derived;
      }
      NodeId id = g_.add(n.op, in, params);
      for (int port = 0; port < g_.node(id).num_outputs(); ++port)
        built_[i * kMaxOutputs + port] = {id, port};
    }
    return RewriteFailure::none;
  }

  TensorRef at(PatternTensor t) const { return built_[t.node * kMaxOutputs + t.port]; }

 private:
  Graph& g_;
  const Match& m_;
  const Pattern& t_;
  std::vector<TensorRef> built_;
};

}  // namespace

std::vector<DirectedRule> compile_rule(const Rule& rule, int index) {
  std::vector<DirectedRule> both;
  for (bool reversed : {false, true})
    if (auto d = direct(rule, index, reversed)) both.push_back(std::move(*d));
  return both;
}

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

std::optional<Graph> build_target_alone(const Graph& g, const Match& m, const DirectedRule& r,
                                        const std::vector<bool>& weight_only) {
  Graph scratch;
  Match stand_in;
  for (size_t v = 0; v < m.variables.size(); ++v) {
    TensorRef t = m.variables[v];
    std::string name = std::string("v").append(std::to_string(v));  // not operator+: GCC 12 -Wrestrict
    NodeId id =
        weight_only[t.node] ? scratch.add_weight(name, g.shape(t)) : scratch.add_input(name, g.shape(t));
    stand_in.variables.push_back({id, 0});
  }
  TargetBuilder builder(scratch, stand_in, r.target);
  try {
    if (builder.build() != RewriteFailure::none) return std::nullopt;
  } catch (const Error&) {
    return std::nullopt;  // e.g. a split of a stand-in, which lost its split tree
  }
  return scratch;
}

std::optional<Graph> apply_rule(const Graph& g, const Match& m, const DirectedRule& r, RewriteFailure* why) {
  auto fail = [&](RewriteFailure f) -> std::optional<Graph> {
    if (why) *why = f;
    return std::nullopt;
  };
  if (creates_cycle(g, m, r.source)) return fail(RewriteFailure::cycle);
  Graph out = g;
  TargetBuilder builder(out, m, r.target);
  try {
    if (RewriteFailure f = builder.build(); f != RewriteFailure::none) return fail(f);
  } catch (const Error&) {
    return fail(RewriteFailure::shapes);
  }
  bool reinfer = false;
  for (size_t k = 0; k < r.source.outputs.size(); ++k) {
    TensorRef from = m.tensor(r.source, r.source.outputs[k]), to = builder.at(r.target.outputs[k]);
    if (out.shape(from) != out.shape(to)) return fail(RewriteFailure::shapes);
    reinfer |= !(out.desc(from) == out.desc(to));
  }
  for (size_t k = 0; k < r.source.outputs.size(); ++k)
    out.replace_uses(m.tensor(r.source, r.source.outputs[k]), builder.at(r.target.outputs[k]));
  out.remove_unused();
  if (reinfer) {
    // Split trees changed: consumers that split these tensors may change shape.
    try {
      out.infer_shapes();
    } catch (const Error&) {
      return fail(RewriteFailure::shapes);
    }
    for (size_t k = 0; k < out.outputs().size(); ++k)
      if (out.shape(out.outputs()[k]) != g.shape(g.outputs()[k])) return fail(RewriteFailure::shapes);
  }
  if (why) *why = RewriteFailure::none;
  return out;
}

}  // namespace superopt
