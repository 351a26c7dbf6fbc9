// Building a rule's target in a copy of the graph and rewiring the matched outputs.
#include "runtime/rewrite/rewrite.h"

#include <algorithm>

#include "runtime/core/error.h"
#include "runtime/rewrite/size_family.h"
#include "runtime/rewrite/target_builder.h"

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

}  // namespace

std::vector<DirectedRule> compile_rule_unconstrained(const Rule& rule, int index) {
  std::vector<DirectedRule> both;
  for (bool reversed : {false, true})
    if (auto d = direct(rule, index, reversed)) both.push_back(std::move(*d));
  return both;
}

std::vector<DirectedRule> compile_rule(const Rule& rule, int index) {
  std::vector<DirectedRule> both = compile_rule_unconstrained(rule, index);
  std::optional<SizeFamily> family = rule.family;
  if (!family && is_proven(rule.status)) family = size_family_of(rule);
  if (family && !family->equal.empty())
    for (DirectedRule& d : both) constrain(d, *family);
  return both;
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
    return std::nullopt;  // a malformed side (misfits, e.g. a split of a stand-in that
                          // lost its split tree, return RewriteFailure::shapes)
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
