// Compiling a rule side: dependency order, variables, the shape facts matching
// keeps from the rule's concrete shapes, and a connected matching order.
#include "runtime/rewrite/pattern.h"

#include <algorithm>
#include <cstring>

#include "runtime/core/error.h"
#include "runtime/core/hashing.h"
#include "runtime/core/intern_table.h"

namespace superopt {

namespace {

// Byte-wise: parameters equal but for padding bytes get two ids, which is harmless.
struct ParamsBytesHash {
  size_t operator()(const OpParams& p) const { return hash_bytes(&p, sizeof p, 0x9a7); }
};
struct ParamsBytesEqual {
  bool operator()(const OpParams& a, const OpParams& b) const { return std::memcmp(&a, &b, sizeof a) == 0; }
};
using ParamsTable = InternTable<OpParams, ParamsBytesHash, ParamsBytesEqual>;

ParamsTable& params_table() {
  static ParamsTable* t = new ParamsTable(OpParams{});  // never destroyed: used during exit
  return *t;
}

}  // namespace

const OpParams& PatternNode::params() const {
  return params_table().at(params_id);
}

void PatternNode::set_params(const OpParams& params) {
  params_id = params_table().intern(params);
}

bool Pattern::is_output(PatternTensor t) const {
  return std::find(outputs.begin(), outputs.end(), t) != outputs.end();
}

namespace {

int variable_index(std::vector<std::string>& names, const std::string& name) {
  auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return static_cast<int>(it - names.begin());
  names.push_back(name);
  return static_cast<int>(names.size()) - 1;
}

void record_shape_facts(const Graph& side, const Node& n, PatternNode& p) {
  for (int port = 0; port < n.num_outputs(); ++port) p.rule_shapes.push_back(n.output(port).shape);
  p.facts = shape_facts(side, n);
}

// Breadth-first from the anchor over operator edges and shared variables.
std::vector<int> connected_order(const Pattern& p, int anchor) {
  std::vector<int> order{anchor};
  std::vector<char> placed(p.nodes.size(), 0);
  placed[anchor] = 1;
  auto touches = [&](int a, int b) {
    for (PatternTensor t : p.nodes[b].inputs)
      if (t.node == a) return true;
    for (PatternTensor t : p.nodes[a].inputs)
      if (t.node == b) return true;
    for (PatternTensor ta : p.nodes[a].inputs)
      for (PatternTensor tb : p.nodes[b].inputs)
        if (ta == tb && p.nodes[ta.node].kind == PatternKind::variable) return true;
    return false;
  };
  for (size_t k = 0; k < order.size(); ++k)
    for (size_t b = 0; b < p.nodes.size(); ++b)
      if (!placed[b] && p.nodes[b].kind != PatternKind::variable && touches(order[k], int(b))) {
        placed[b] = 1;
        order.push_back(int(b));
      }
  return order;
}

}  // namespace

Pattern compile_pattern(const Graph& side, std::vector<std::string> variables) {
  auto order = side.topological_order();
  if (!order) throw Error("rule side has a cycle");
  Pattern p;
  p.variable_names = std::move(variables);
  p.nodes.reserve(side.num_nodes());  // exact: an index holds a million patterns
  std::vector<int> index(side.num_nodes(), -1);
  for (NodeId id : *order) {
    const Node& n = side.node(id);
    PatternNode pn;
    pn.op = n.op;
    pn.set_params(n.params);
    if (n.op == OpType::input || n.op == OpType::weight) {
      pn.kind = PatternKind::variable;
      pn.variable = variable_index(p.variable_names, n.name.str());
    } else {
      pn.kind = is_constant(n.op) ? PatternKind::constant : PatternKind::op;
      p.num_operators += pn.kind == PatternKind::op;
    }
    pn.inputs.reserve(n.inputs().size());
    for (TensorRef t : n.inputs()) pn.inputs.push_back({index[t.node], t.port});
    record_shape_facts(side, n, pn);
    index[id] = static_cast<int>(p.nodes.size());
    p.nodes.push_back(std::move(pn));
  }
  for (TensorRef t : side.outputs()) p.outputs.push_back({index[t.node], t.port});
  int anchor = p.outputs.empty() ? -1 : p.outputs.front().node;
  if (anchor < 0 || p.nodes[anchor].kind != PatternKind::op) {
    // The first output is a variable or constant: anchor on any operator.
    auto it = std::find_if(p.nodes.begin(), p.nodes.end(),
                           [](const PatternNode& n) { return n.kind == PatternKind::op; });
    anchor = it == p.nodes.end() ? -1 : static_cast<int>(it - p.nodes.begin());
  }
  if (anchor >= 0) p.match_order = connected_order(p, anchor);
  return p;
}

bool mark_group_scaling(Pattern& source, Pattern& target) {
  auto only_merging_ops = [](const Pattern& p) {
    return std::all_of(p.nodes.begin(), p.nodes.end(), [](const PatternNode& n) {
      return n.kind == PatternKind::variable || n.op == OpType::conv2d || n.op == OpType::relu ||
             n.op == OpType::merge_groups;
    });
  };
  auto has = [](const Pattern& p, OpType op) {
    return std::any_of(p.nodes.begin(), p.nodes.end(), [op](const PatternNode& n) { return n.op == op; });
  };
  if (!only_merging_ops(source) || !only_merging_ops(target) || has(source, OpType::merge_groups) ||
      !has(target, OpType::merge_groups))
    return false;
  for (const PatternNode& n : source.nodes)
    if (n.op == OpType::conv2d && (n.facts.groups < 2 || n.facts.depthwise)) return false;
  for (PatternNode& n : source.nodes) n.facts.any_group_multiple = n.op == OpType::conv2d;
  // The merged convolutions scale with the source's (merge_groups' parameters follow).
  for (PatternNode& n : target.nodes) n.facts.any_group_multiple = n.op == OpType::conv2d;
  return true;
}

std::optional<std::string> unmatchable_reason(const Pattern& p) {
  if (p.nodes.size() > size_t(kMaxPatternNodes) || p.variable_names.size() > size_t(kMaxPatternNodes))
    return "it has more than " + std::to_string(kMaxPatternNodes) + " nodes";
  if (p.num_operators == 0) return "it has no operator (it would match every tensor)";
  size_t matchable = std::count_if(p.nodes.begin(), p.nodes.end(),
                                   [](const PatternNode& n) { return n.kind != PatternKind::variable; });
  if (p.match_order.size() != matchable) return "its operators are not connected";
  for (const PatternNode& n : p.nodes)
    if (n.op == OpType::opaque) return "it has an opaque operator";
  return std::nullopt;
}

}  // namespace superopt
