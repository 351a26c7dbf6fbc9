// The first-order encoding of axioms and rule graphs (see tensor_theory.h).
#include "verify/tensor_theory.h"

#include "runtime/error.h"
#include "verify/param_ints.h"

namespace superopt::verify {

z3::func_decl TensorTheory::function(OpType op, int port, int num_ints, int num_args) {
  std::string name = function_name(op, port, num_ints);
  // concat with more than two inputs is its own function: no axiom speaks of it.
  if (op == OpType::concat && num_args != 2) name += "#" + std::to_string(num_args);
  auto it = functions_.find(name);
  if (it != functions_.end()) return it->second;
  z3::sort_vector domain(ctx_);
  for (int i = 0; i < num_ints; ++i) domain.push_back(ctx_.int_sort());
  for (int i = 0; i < num_args; ++i) domain.push_back(tensor_);
  z3::func_decl f = ctx_.function(name.c_str(), domain, tensor_);
  functions_.emplace(name, f);
  return f;
}

z3::expr TensorTheory::apply(OpType op, int port, const z3::expr_vector& ints, const z3::expr_vector& args) {
  z3::func_decl f = function(op, port, static_cast<int>(ints.size()), static_cast<int>(args.size()));
  z3::expr_vector all(ctx_);
  for (const z3::expr& e : ints) all.push_back(e);
  for (const z3::expr& e : args) all.push_back(e);
  if (all.empty()) return f();
  return f(all);
}

z3::expr TensorTheory::term(const Term& t, const std::map<std::string, z3::expr>& bound) {
  if (t.is_var()) return bound.at(t.var);
  z3::expr_vector ints(ctx_), args(ctx_);
  for (const IntAtom& a : t.params)
    ints.push_back(a.is_var() ? bound.at(a.var) : ctx_.int_val(static_cast<int64_t>(a.value)));
  for (const Term& arg : t.args) args.push_back(term(arg, bound));
  return apply(t.op, t.port, ints, args);
}

namespace {

// Z3 names for the integer variables of an axiom: a stride or kernel variable is two.
std::vector<std::string> int_var_names(const Axiom& ax) {
  std::vector<std::string> names;
  for (const ParamVar& v : ax.vars) {
    if (v.kind == VarKind::stride || v.kind == VarKind::kernel) {
      names.push_back(v.name + ".h");
      names.push_back(v.name + ".w");
    } else {
      names.push_back(v.name);
    }
  }
  return names;
}

}  // namespace

z3::expr TensorTheory::axiom(const Axiom& ax) {
  std::map<std::string, z3::expr> bound;
  z3::expr_vector vars(ctx_);
  for (const std::string& name : int_var_names(ax)) {
    z3::expr v = ctx_.int_const(name.c_str());
    bound.emplace(name, v);
    vars.push_back(v);
  }
  for (const TensorVar& tv : ax.tensors) {
    z3::expr v = ctx_.constant(tv.name.c_str(), tensor_);
    bound.emplace(tv.name, v);
    vars.push_back(v);
  }
  return z3::forall(vars, term(ax.lhs, bound) == term(ax.rhs, bound));
}

z3::expr TensorTheory::axiom_instance(const Axiom& ax, const std::string& suffix) {
  std::map<std::string, z3::expr> bound;
  for (const std::string& name : int_var_names(ax))
    bound.emplace(name, ctx_.int_const((name + suffix).c_str()));
  for (const TensorVar& tv : ax.tensors)
    bound.emplace(tv.name, ctx_.constant((tv.name + suffix).c_str(), tensor_));
  return term(ax.lhs, bound) == term(ax.rhs, bound);
}

std::vector<z3::expr> TensorTheory::graph_outputs(const Graph& g) {
  auto order = g.topological_order();
  if (!order) throw Error("cannot encode a graph with a cycle");
  std::vector<std::vector<z3::expr>> values(g.num_nodes());
  for (NodeId id : *order) {
    const Node& n = g.node(id);
    if (n.op == OpType::input || n.op == OpType::weight) {
      values[id].push_back(ctx_.constant(("t:" + std::string(n.name.str())).c_str(), tensor_));
      continue;
    }
    z3::expr_vector ints(ctx_), args(ctx_);
    int64_t groups = has_groups(n.op) ? conv_groups(g.shape(n.inputs()[0]), g.shape(n.inputs()[1])) : 1;
    for (int64_t v : node_ints(n.op, n.params, groups)) ints.push_back(ctx_.int_val(v));
    for (const TensorRef& in : n.inputs()) args.push_back(values[in.node][in.port]);
    for (int port = 0; port < n.num_outputs(); ++port) values[id].push_back(apply(n.op, port, ints, args));
  }
  std::vector<z3::expr> outputs;
  for (const TensorRef& t : g.outputs()) outputs.push_back(values[t.node][t.port]);
  return outputs;
}

}  // namespace superopt::verify
