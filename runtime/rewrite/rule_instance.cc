// Rule instances at new shapes (see rule_instance.h).
#include "runtime/rewrite/rule_instance.h"

#include "runtime/core/error.h"
#include "runtime/rewrite/target_builder.h"

namespace superopt {
namespace {

const PatternNode& variable_node(const Pattern& p, int v) {
  for (const PatternNode& n : p.nodes)
    if (n.kind == PatternKind::variable && n.variable == v) return n;
  throw Error("rule pattern has no variable " + std::to_string(v));
}

// One side over the variables of `base`; nullopt when an operator does not fit.
std::optional<Graph> build_side(const Graph& base, const Match& vars, const Pattern& side, bool is_target) {
  Graph g = base;
  TargetBuilder builder(g, vars, side, is_target);
  try {
    if (builder.build() != RewriteFailure::none) return std::nullopt;
    for (PatternTensor t : side.outputs) g.add_output(builder.at(t));
    g.remove_unused();
  } catch (const Error&) {
    return std::nullopt;  // not a misfit (those return above without a throw): a malformed side
  }
  return g;
}

// Whether the matcher finds p in g with every variable bound to its namesake.
bool matches_itself(const Graph& g, const Pattern& p) {
  GraphIndex index(g);
  bool found = false;
  std::function<void(const Match&)> visit = [&](const Match& m) {
    bool same = true;
    for (size_t v = 0; v < m.variables.size(); ++v) {
      // A variable the source never reads stays unbound: not the rule's own occurrence.
      if (m.variables[v].node < 0) {
        same = false;
        break;
      }
      const Node& n = g.node(m.variables[v].node);
      same = same && (n.op == OpType::input || n.op == OpType::weight) && n.name.str() == p.variable_names[v];
    }
    found = found || same;
  };
  for (NodeId id : index.nodes_of(p.anchor_op())) match_at(g, index, p, id, visit);
  return found;
}

}  // namespace

std::vector<Shape> rule_variable_shapes(const DirectedRule& r) {
  std::vector<Shape> shapes;
  for (size_t v = 0; v < r.source.variable_names.size(); ++v)
    shapes.push_back(variable_node(r.source, int(v)).rule_shapes[0]);
  return shapes;
}

std::optional<RuleInstance> instantiate(const DirectedRule& r, const std::vector<Shape>& variable_shapes) {
  Graph base;
  Match vars;
  for (size_t v = 0; v < r.source.variable_names.size(); ++v) {
    const std::string& name = r.source.variable_names[v];
    NodeId id = variable_node(r.source, int(v)).op == OpType::weight
                    ? base.add_weight(name, variable_shapes[v])
                    : base.add_input(name, variable_shapes[v]);
    vars.variables.push_back({id, 0});
  }
  std::optional<Graph> source = build_side(base, vars, r.source, false);
  if (!source || !matches_itself(*source, r.source)) return std::nullopt;
  std::optional<Graph> target = build_side(base, vars, r.target, true);
  if (!target) return std::nullopt;
  // apply_rule refuses an occurrence where an output would change shape.
  for (size_t k = 0; k < source->outputs().size(); ++k)
    if (source->shape(source->outputs()[k]) != target->shape(target->outputs()[k])) return std::nullopt;
  return RuleInstance{std::move(*source), std::move(*target)};
}

}  // namespace superopt
