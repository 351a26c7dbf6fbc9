// The first-order encoding of tensor programs (TASO section 3): tensors are an
// uninterpreted sort, operators uninterpreted functions of integer parameters and
// tensors. Both axioms and rule graphs are encoded here, with the same symbols.
#pragma once

#include <z3++.h>

#include <map>
#include <string>
#include <vector>

#include "runtime/core/graph.h"
#include "verify/axiom_set.h"

namespace superopt::verify {

class TensorTheory {
 public:
  explicit TensorTheory(z3::context& ctx) : ctx_(ctx), tensor_(ctx.uninterpreted_sort("Tensor")) {}

  z3::context& context() const { return ctx_; }

  // forall (variables). lhs == rhs
  z3::expr axiom(const Axiom& ax);
  // The axiom with its variables replaced by fresh constants (for entailment
  // checks of the axiom itself: assert its negation).
  z3::expr axiom_instance(const Axiom& ax, const std::string& suffix);

  // One term per graph output, in order. Inputs, weights and constants are
  // named after their node names (so two graphs over the same names share them).
  std::vector<z3::expr> graph_outputs(const Graph& g);

 private:
  z3::func_decl function(const std::string& name, int num_ints, int num_args);
  // forall (the trigger's variables). lhs == rhs, instantiated only where the
  // trigger terms (axiom_trigger: one side whole, and maybe subterms of the
  // other) all match.
  z3::expr triggered_axiom(const Axiom& ax, const std::vector<const Term*>& trigger);
  // A parameter integer: a literal, a variable, or a linear form of them.
  z3::expr int_expr(const IntAtom& a, const std::map<std::string, z3::expr>& bound);
  z3::expr apply(OpType op, int port, int rank, const z3::expr_vector& ints, const z3::expr_vector& args,
                 bool one_element_inputs);
  // The term, and whether its value is a one-element tensor as far as the
  // axiom's shape templates say (literal sizes 1, or rank 0).
  std::pair<z3::expr, bool> term(const Term& t, const std::map<std::string, z3::expr>& bound,
                                 const std::map<std::string, bool>& one_element_vars);

  z3::context& ctx_;
  z3::sort tensor_;
  std::map<std::string, z3::func_decl> functions_;
};

}  // namespace superopt::verify
