// The first-order encoding of tensor programs (TASO section 3): tensors are an
// uninterpreted sort, operators uninterpreted functions of integer parameters and
// tensors. Both axioms and rule graphs are encoded here, with the same symbols.
#pragma once

#include <z3++.h>

#include <map>
#include <string>
#include <vector>

#include "runtime/graph.h"
#include "verify/axioms.h"

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
  z3::func_decl function(OpType op, int port, int num_ints, int num_args);
  z3::expr apply(OpType op, int port, const z3::expr_vector& ints, const z3::expr_vector& args);
  z3::expr term(const Term& t, const std::map<std::string, z3::expr>& bound);

  z3::context& ctx_;
  z3::sort tensor_;
  std::map<std::string, z3::func_decl> functions_;
};

}  // namespace superopt::verify
