// Decides one rule: small-tensor validation (may refute it), then a proof from
// the axioms (may verify it); what neither settles stays unknown, with why.
#pragma once

#include <z3++.h>

#include <memory>
#include <optional>
#include <string>

#include "runtime/db/rule_database.h"
#include "verify/axiom_set.h"
#include "verify/prover.h"

namespace superopt::verify {

struct VerifyLimits {
  unsigned timeout_ms = 10000;  // wall clock per query
  // Z3's deterministic resource limit per proof, so that the same rule gets the
  // same answer on any rank and any machine; wall-clock timeouts alone are not
  // honoured promptly once E-matching runs away.
  unsigned proof_rlimit = 200000;
};

struct RuleVerdict {
  RuleStatus status = RuleStatus::unknown;
  double ms = 0;        // all of it: validation, proof or derivation
  double proof_ms = 0;  // Z3's proof alone (0: none ran)
  std::string note;
  Derivation derivation;  // derived: the proof
  // Proven: the sizes the proof holds for (runtime/rewrite/size_family.h).
  std::optional<SizeFamily> family;
};

// v with its rule's size family when v proves it (size_family_of): found by
// the rank that decided the rule, which holds its graphs.
RuleVerdict with_family(RuleVerdict v, const Rule& rule);

class RuleVerifier {
 public:
  RuleVerifier(const AxiomSet& axioms, const VerifyLimits& limits);
  RuleVerdict verify(const Rule& rule);

 private:
  std::unique_ptr<z3::context> ctx_;  // before the prover, which holds its terms
  VerifyLimits limits_;
  RuleProver prover_;
};

}  // namespace superopt::verify
