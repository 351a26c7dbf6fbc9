// Proves rules from the axioms: for every mapped output, the axioms entail
// source == target (the negation is unsatisfiable), within a resource limit.
// A proof is tried first from the axioms over the rule's own operators, then,
// if that fails, from the rule's whole theory (AxiomSet::theory_for).
#pragma once

#include <z3++.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/db/rule_database.h"
#include "verify/axiom_set.h"
#include "verify/tensor_theory.h"

namespace superopt::verify {

// Solver settings of every entailment check (rule proofs, axiom redundancy): a
// wall-clock timeout, Z3's deterministic resource limit (0: none), which stops
// runaway E-matching that the timeout does not, and E-matching only.
z3::params entailment_params(z3::context& ctx, unsigned timeout_ms, unsigned rlimit);

// Whether Z3's reason for "unknown" is a limit running out (time, resources,
// memory), rather than its quantifier instances running out.
bool ran_out_of_limits(const std::string& reason_unknown);

// The axioms of a rule's theory that apply only operators the rule has: a
// subset of the theory, so whatever they prove the theory proves.
std::vector<const Axiom*> own_operator_axioms(const std::vector<const Axiom*>& theory,
                                              const std::set<OpType>& rule_ops);

enum class ProofOutcome : uint8_t { proved, not_entailed, timeout };

struct Proof {
  ProofOutcome outcome = ProofOutcome::timeout;
  double ms = 0;                    // both attempts
  bool own_operators_only = false;  // proved from own_operator_axioms alone
};

class RuleProver {
 public:
  // The axioms are encoded once per theory; each attempt gets a fresh solver,
  // so that a rule's answer never depends on the rules checked before it (an
  // incremental solver carries instances and lemmas across scopes, and slowed
  // down here). Both attempts run under the same deterministic rlimit, so every
  // rank gives every rule the same answer.
  RuleProver(z3::context& ctx, const AxiomSet& axioms, unsigned timeout_ms, unsigned rlimit);
  // Own operators' axioms first: most rules need no other, and E-matching over
  // a few axioms is several times faster than over all of them. If they do not
  // prove the rule, the whole theory decides it, as if the first attempt had
  // not run: the outcome is never worse than the whole theory's alone.
  Proof prove(const Rule& rule);

 private:
  const z3::expr_vector& encoded(const std::vector<const Axiom*>& axioms);
  z3::check_result check(const z3::expr_vector& theory, const z3::expr& negated_rule, std::string& reason);

  TensorTheory theory_;
  AxiomSet axioms_;
  std::map<std::vector<size_t>, z3::expr_vector> encoded_;  // by the indices of its axioms
  z3::params params_;
};

}  // namespace superopt::verify
