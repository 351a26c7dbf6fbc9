// Proves rules from the axioms: for every mapped output, the axioms entail
// source == target (the negation is unsatisfiable), within a timeout.
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

enum class ProofOutcome : uint8_t { proved, not_entailed, timeout };

struct Proof {
  ProofOutcome outcome = ProofOutcome::timeout;
  double ms = 0;
};

class RuleProver {
 public:
  // The axioms are encoded once; each rule gets a fresh solver, so that a
  // rule's answer never depends on the rules checked before it (an incremental
  // solver carries instances and lemmas across scopes, and slowed down here).
  RuleProver(z3::context& ctx, const AxiomSet& axioms, unsigned timeout_ms, unsigned rlimit);
  Proof prove(const Rule& rule);

 private:
  // The encoded axioms a rule over these operators may use (AxiomSet::theory_for).
  const z3::expr_vector& theory_for(const std::set<OpType>& rule_ops);

  TensorTheory theory_;
  AxiomSet axioms_;
  std::map<std::vector<size_t>, z3::expr_vector> encoded_;  // by the indices of its axioms
  z3::params params_;
};

}  // namespace superopt::verify
