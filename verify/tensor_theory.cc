// The first-order encoding of axioms and rule graphs (see tensor_theory.h).
#include "verify/tensor_theory.h"

#include <algorithm>
#include <optional>
#include <set>

#include "runtime/core/error.h"
#include "verify/param_ints.h"

namespace superopt::verify {

z3::func_decl TensorTheory::function(const std::string& name, int num_ints, int num_args) {
  auto it = functions_.find(name);
  if (it != functions_.end()) return it->second;
  z3::sort_vector domain(ctx_);
  for (int i = 0; i < num_ints; ++i) domain.push_back(ctx_.int_sort());
  for (int i = 0; i < num_args; ++i) domain.push_back(tensor_);
  z3::func_decl f = ctx_.function(name.c_str(), domain, tensor_);
  functions_.emplace(name, f);
  return f;
}

namespace {

bool has_one_element_symbol(OpType op) {
  return op == OpType::ewmul || op == OpType::smul;
}

// Whether an operator's output is a one-element tensor when its inputs' are as given.
bool one_element_output(OpType op, const std::vector<bool>& inputs) {
  switch (op) {
    case OpType::smul:
    case OpType::relu:
    case OpType::sigmoid:
    case OpType::tanh:
    case OpType::silu:
    case OpType::hardswish:
    case OpType::gelu:
    case OpType::relu6:
      return !inputs.empty() && inputs[0];
    case OpType::ewadd:
    case OpType::ewmul:
      return inputs.size() == 2 && inputs[0] && inputs[1];
    default:
      return false;  // not needed: the encoding only asks about ewmul and smul inputs
  }
}

// The part sizes node_ints appends to a concat or a split (param_ints.h).
std::vector<int64_t> part_sizes(const Graph& g, const Node& n) {
  std::vector<int64_t> parts;
  if (n.op == OpType::concat)
    for (int i = 0; i + 1 < n.num_inputs; ++i) parts.push_back(g.shape(n.inputs()[i])[n.params.axis]);
  else if (n.op == OpType::split)
    parts.push_back(n.output(0).shape[n.params.axis]);
  return parts;
}

}  // namespace

z3::expr TensorTheory::apply(OpType op, int port, int rank, const z3::expr_vector& ints,
                             const z3::expr_vector& args, bool one_element_inputs) {
  const int num_ints = static_cast<int>(ints.size()), num_args = static_cast<int>(args.size());
  std::string name = function_name(op, port, num_ints, rank);
  // concat with more than two inputs is its own function (n - 1 part sizes):
  // no axiom speaks of it.
  if (op == OpType::concat && num_args != 2) name.append("#").append(std::to_string(num_args));
  // A convolution with its bias is a function of its own: its axioms name it
  // with three arguments (verify/axioms/taso.ax).
  if (op == OpType::conv2d && num_args == 3) name.append("#3");
  if (has_one_element_symbol(op) && one_element_inputs) name += ".1";
  z3::func_decl f = function(name, num_ints, num_args);
  z3::expr_vector all(ctx_);
  for (const z3::expr& e : ints) all.push_back(e);
  for (const z3::expr& e : args) all.push_back(e);
  if (all.empty()) return f();
  return f(all);
}

z3::expr TensorTheory::int_expr(const IntAtom& a, const std::map<std::string, z3::expr>& bound) {
  if (a.is_plain_var()) return bound.at(a.var());
  // Arithmetic (`2*g`, `p-q`) is never in a pattern (axiom_trigger picks the
  // other side); Z3 simplifies an instance's 2*4 to the 8 of a rule's convolution.
  std::optional<z3::expr> sum;
  if (a.value != 0 || a.is_literal()) sum = ctx_.int_val(static_cast<int64_t>(a.value));
  for (const IntAtom::Summand& s : a.vars) {
    const z3::expr& v = bound.at(s.var);
    const z3::expr summand = s.factor == 1 ? v : ctx_.int_val(static_cast<int64_t>(s.factor)) * v;
    sum = sum ? *sum + summand : summand;
  }
  return *sum;
}

std::pair<z3::expr, bool> TensorTheory::term(const Term& t, const std::map<std::string, z3::expr>& bound,
                                             const std::map<std::string, bool>& one_element_vars) {
  if (t.is_var()) return {bound.at(t.var), one_element_vars.at(t.var)};
  z3::expr_vector ints(ctx_), args(ctx_);
  for (const IntAtom& a : t.params) ints.push_back(int_expr(a, bound));
  std::vector<bool> one_element;
  for (const Term& arg : t.args) {
    auto [e, one] = term(arg, bound, one_element_vars);
    args.push_back(e);
    one_element.push_back(one);
  }
  bool all_one = std::all_of(one_element.begin(), one_element.end(), [](bool b) { return b; });
  return {apply(t.op, t.port, t.rank, ints, args, !one_element.empty() && all_one),
          one_element_output(t.op, one_element)};
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

// Tensors whose template has only literal sizes 1 (or no dimensions at all).
std::map<std::string, bool> one_element_vars(const Axiom& ax) {
  std::map<std::string, bool> one;
  for (const TensorVar& tv : ax.tensors)
    one[tv.name] = std::all_of(tv.shape.begin(), tv.shape.end(),
                               [](const IntAtom& a) { return a.is_literal() && a.value == 1; });
  return one;
}

}  // namespace

z3::expr TensorTheory::axiom(const Axiom& ax) {
  const std::vector<const Term*> trigger = axiom_trigger(ax);
  if (!trigger.empty()) return triggered_axiom(ax, trigger);
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
  const auto one = one_element_vars(ax);
  return z3::forall(vars, term(ax.lhs, bound, one).first == term(ax.rhs, bound, one).first);
}

z3::expr TensorTheory::triggered_axiom(const Axiom& ax, const std::vector<const Term*>& trigger) {
  std::set<std::string> used;
  for (const Term* t : trigger) collect_vars(*t, used);
  std::map<std::string, z3::expr> bound;
  std::vector<Z3_app> vars;
  auto bind = [&](const std::string& name, const z3::expr& v) {
    bound.emplace(name, v);
    if (used.count(name)) vars.push_back(Z3_to_app(ctx_, v));
  };
  for (const std::string& name : int_var_names(ax)) bind(name, ctx_.int_const(name.c_str()));
  for (const TensorVar& tv : ax.tensors) bind(tv.name, ctx_.constant(tv.name.c_str(), tensor_));
  const auto one = one_element_vars(ax);
  const z3::expr body = term(ax.lhs, bound, one).first == term(ax.rhs, bound, one).first;
  // One multi-pattern: every term of it must match for an instance.
  z3::expr_vector pattern_terms(ctx_);
  std::vector<Z3_ast> pattern_asts;
  for (const Term* t : trigger) {
    pattern_terms.push_back(term(*t, bound, one).first);
    pattern_asts.push_back(pattern_terms.back());
  }
  Z3_pattern pattern = Z3_mk_pattern(ctx_, static_cast<unsigned>(pattern_asts.size()), pattern_asts.data());
  Z3_ast q = Z3_mk_forall_const(ctx_, 0, static_cast<unsigned>(vars.size()), vars.data(), 1, &pattern, body);
  ctx_.check_error();
  return z3::expr(ctx_, q);
}

z3::expr TensorTheory::axiom_instance(const Axiom& ax, const std::string& suffix) {
  std::map<std::string, z3::expr> bound;
  for (const std::string& name : int_var_names(ax))
    bound.emplace(name, ctx_.int_const((name + suffix).c_str()));
  for (const TensorVar& tv : ax.tensors)
    bound.emplace(tv.name, ctx_.constant((tv.name + suffix).c_str(), tensor_));
  const auto one = one_element_vars(ax);
  return term(ax.lhs, bound, one).first == term(ax.rhs, bound, one).first;
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
    const int input_rank = n.num_inputs > 0 ? g.shape(n.inputs()[0]).rank() : 0;
    for (int64_t v : node_ints(n.op, n.params, input_rank, groups, part_sizes(g, n)))
      ints.push_back(ctx_.int_val(v));
    bool one_element_inputs = n.num_inputs > 0;
    for (const TensorRef& in : n.inputs()) {
      args.push_back(values[in.node][in.port]);
      one_element_inputs = one_element_inputs && g.shape(in).num_elements() == 1;
    }
    for (int port = 0; port < n.num_outputs(); ++port)
      values[id].push_back(apply(n.op, port, n.output(port).shape.rank(), ints, args, one_element_inputs));
  }
  std::vector<z3::expr> outputs;
  for (const TensorRef& t : g.outputs()) outputs.push_back(values[t.node][t.port]);
  return outputs;
}

}  // namespace superopt::verify
