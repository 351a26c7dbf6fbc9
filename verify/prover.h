// Proves rules from the axioms: for every mapped output, the axioms entail
// source == target (the negation is unsatisfiable), within a resource limit.
// A proof is tried first from the axioms over the rule's own operators, then,
// if that fails, from the rule's whole theory (AxiomSet::theory_for), in a
// cheap solver first and then in Z3's default one.
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
  double ms = 0;                    // every attempt together
  bool own_operators_only = false;  // proved from own_operator_axioms alone
  int attempts = 0;                 // solvers run (RuleProver::prove)
};

class RuleProver {
 public:
  // The axioms are encoded once per theory; each attempt gets a fresh solver,
  // so that a rule's answer never depends on the rules checked before it (an
  // incremental solver carries instances and lemmas across scopes, and slowed
  // down here). Every attempt runs under the same deterministic rlimit, so
  // every rank gives every rule the same answer.
  RuleProver(z3::context& ctx, const AxiomSet& axioms, unsigned timeout_ms, unsigned rlimit);
  // Up to three attempts, cheapest first, each with a fresh solver: (1) the
  // rule's own operators' axioms in Z3's simple solver (most rules need no
  // other axiom, and the simple solver skips the default one's preprocessing,
  // about 8 ms of CPU per solver); (2) the whole theory in the simple solver;
  // (3) the whole theory in the default solver, exactly the proof that was the
  // only one before. Any attempt's "proved" is sound (a subset of the theory,
  // the same axioms); the last one keeps every proof it alone would find.
  Proof prove(const Rule& rule);

 private:
  struct Attempt {
    const std::vector<const Axiom*>* axioms;
    bool simple_solver;
    bool own_operators_only;
  };
  const z3::expr_vector& encoded(const std::vector<const Axiom*>& axioms);
  z3::check_result check(Attempt attempt, const z3::expr& negated_rule, std::string& reason);

  TensorTheory theory_;
  AxiomSet axioms_;
  std::map<std::vector<size_t>, z3::expr_vector> encoded_;  // by the indices of its axioms
  z3::params params_;
};

}  // namespace superopt::verify
