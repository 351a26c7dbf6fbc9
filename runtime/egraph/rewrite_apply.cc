// The scratch graph of an e-match, its confirmation by the graph matcher, and
// the target's operators moved into the e-graph (see rewrite_apply.h).
#include "runtime/egraph/rewrite_apply.h"

#include <map>
#include <optional>

#include "runtime/core/error.h"
#include "runtime/egraph/stand_in.h"
#include "runtime/rewrite/matcher.h"
#include "runtime/rewrite/target_builder.h"

namespace superopt::egraph {
namespace {

using TensorKey = std::pair<NodeId, int>;

struct Scratch {
  Graph graph;
  std::vector<NodeId> ids;              // per pattern node: its scratch node (-1 for variables)
  std::map<ClassId, TensorRef> tensor;  // class -> scratch tensor
  std::map<TensorKey, ClassId> cls;     // scratch tensor -> class
};

void bind(Scratch& s, ClassId c, TensorRef t) {
  s.tensor[c] = t;
  s.cls[{t.node, t.port}] = c;
}

// The occurrence as a graph of its own; nullopt when an operator does not build.
std::optional<Scratch> build_source(const EGraph& eg, const Pattern& p, const EMatch& m) {
  Scratch s;
  s.ids.assign(p.nodes.size(), -1);
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const PatternNode& pn = p.nodes[i];
    if (pn.kind == PatternKind::variable) {
      const ClassId c = m.variables[pn.variable];
      if (!s.tensor.count(c))
        bind(s, c, stand_in(s.graph, eg.eclass(c).descs[0], std::string("v").append(std::to_string(c))));
      continue;
    }
    const ENode& e = eg.node(m.nodes[i]);
    std::vector<TensorRef> in;
    for (ClassId child : e.children) {
      auto it = s.tensor.find(eg.find(child));
      if (it == s.tensor.end()) return std::nullopt;
      in.push_back(it->second);
    }
    std::optional<NodeId> id = s.graph.try_add(e.op, in, e.params);
    if (!id) return std::nullopt;
    s.ids[i] = *id;
    const ClassId own = eg.class_of(m.nodes[i]);
    if (pn.rule_shapes.size() == 1) {
      bind(s, own, {*id, 0});
    } else {
      for (int port = 0; port < int(pn.rule_shapes.size()); ++port)
        if (std::optional<ClassId> c = eg.projection(own, port)) bind(s, *c, {*id, port});
    }
  }
  for (PatternTensor t : p.outputs) s.graph.add_output({s.ids[t.node], t.port});
  return s;
}

// The graph matcher's occurrence that binds every operator to the node built for it.
std::optional<Match> confirm(const Scratch& s, const Pattern& p) {
  std::optional<Match> found;
  GraphIndex index(s.graph);
  match_at(s.graph, index, p, s.ids[p.match_order.front()], [&](const Match& m) {
    if (found) return;
    for (size_t i = 0; i < p.nodes.size(); ++i)
      if (p.nodes[i].kind != PatternKind::variable && m.nodes[i] != s.ids[i]) return;
    found = m;
  });
  return found;
}

// Adds the scratch nodes from `first` on to the e-graph; the class of each output.
bool add_built(EGraph& eg, Scratch& s, NodeId first, std::vector<NodeIndex>* added) {
  for (NodeId id = first; id < s.graph.num_nodes(); ++id) {
    const Node& n = s.graph.node(id);
    ENode e;
    e.op = n.op;
    e.params = n.params;
    for (TensorRef t : n.inputs()) {
      auto it = s.cls.find({t.node, t.port});
      if (it == s.cls.end()) return false;
      e.children.push_back(it->second);
    }
    const int before = eg.num_nodes();
    std::optional<ClassId> c = eg.add(std::move(e));
    if (!c) return false;
    if (added && eg.num_nodes() > before) added->push_back(before);
    if (n.num_outputs() == 1) {
      s.cls[{id, 0}] = *c;
      continue;
    }
    for (int port = 0; port < n.num_outputs(); ++port) {
      ENode proj;
      proj.port = int8_t(port);
      proj.children = {*c};
      const int before_proj = eg.num_nodes();
      std::optional<ClassId> pc = eg.add(std::move(proj));
      if (!pc) return false;
      if (added && eg.num_nodes() > before_proj) added->push_back(before_proj);
      s.cls[{id, port}] = *pc;
    }
  }
  return true;
}

bool same_descs(const EGraph& eg, ClassId a, ClassId b) {
  const EClass &x = eg.eclass(a), &y = eg.eclass(b);
  if (x.descs.size() != y.descs.size()) return false;
  for (size_t i = 0; i < x.descs.size(); ++i)
    if (!(x.descs[i] == y.descs[i])) return false;
  return true;
}

}  // namespace

ApplyOutcome apply_at(EGraph& eg, const DirectedRule& r, const EMatch& m, std::vector<NodeIndex>* added,
                      RefusalCache* refusals) {
  bool all_weight_only = true;
  for (ClassId v : m.variables) all_weight_only = all_weight_only && (v < 0 || eg.eclass(v).weight_only);
  if (all_weight_only) return ApplyOutcome::load_time_only;
  if (refusals && refusals->refused(eg, r, m)) return ApplyOutcome::not_confirmed;
  std::optional<Scratch> s = build_source(eg, r.source, m);
  std::optional<Match> match;
  if (s) match = confirm(*s, r.source);
  if (!match) {
    if (refusals) refusals->add_refused();
    return ApplyOutcome::not_confirmed;
  }
  const NodeId first = s->graph.num_nodes();
  TargetBuilder builder(s->graph, *match, r.target);
  try {
    if (builder.build() != RewriteFailure::none) return ApplyOutcome::target_misfit;
  } catch (const Error&) {
    return ApplyOutcome::target_misfit;
  }
  const int nodes_before = eg.num_nodes();
  if (!add_built(eg, *s, first, added)) return ApplyOutcome::target_misfit;
  std::vector<std::pair<ClassId, ClassId>> pairs;
  for (size_t k = 0; k < r.source.outputs.size(); ++k) {
    TensorRef from = match->tensor(r.source, r.source.outputs[k]);
    TensorRef to = builder.at(r.target.outputs[k]);
    auto a = s->cls.find({from.node, from.port}), b = s->cls.find({to.node, to.port});
    if (a == s->cls.end() || b == s->cls.end()) return ApplyOutcome::target_misfit;
    if (!same_descs(eg, a->second, b->second)) return ApplyOutcome::refused_merge;
    pairs.push_back({a->second, b->second});
  }
  bool merged = false;
  for (auto [a, b] : pairs) merged |= eg.merge(a, b);
  return merged || eg.num_nodes() > nodes_before ? ApplyOutcome::changed : ApplyOutcome::unchanged;
}

}  // namespace superopt::egraph
