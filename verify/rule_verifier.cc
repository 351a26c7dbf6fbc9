// One rule's verdict (see rule_verifier.h).
#include "verify/rule_verifier.h"

#include <chrono>

#include "runtime/core/error.h"
#include "runtime/rewrite/size_family.h"
#include "verify/rule_family.h"
#include "verify/rule_validation.h"

namespace superopt::verify {

RuleVerdict with_family(RuleVerdict v, const Rule& rule) {
  if (is_proven(v.status) && !v.family) v.family = size_family_of(rule);
  return v;
}

namespace {

// The rule with its sides at its generic member (rule_family.h), where only
// the sizes its family keeps equal are equal; as it is when none moves.
Rule at_generic_member(const Rule& rule, const std::vector<RuleFamily>& families) {
  if (families.empty()) return rule;
  std::optional<RuleInstance> member = generic_instance(families.front());
  if (!member) return rule;
  Rule generic = rule;
  generic.source = std::move(member->source);
  generic.target = std::move(member->target);
  if (families.front().rule.reversed) std::swap(generic.source, generic.target);
  return generic;
}

}  // namespace

RuleVerifier::RuleVerifier(const AxiomSet& axioms, const VerifyLimits& limits)
    : ctx_(std::make_unique<z3::context>()),
      limits_(limits),
      prover_(*ctx_, axioms, limits.timeout_ms, limits.proof_rlimit) {}

RuleVerdict RuleVerifier::verify(const Rule& rule) {
  auto start = std::chrono::steady_clock::now();
  RuleVerdict v;
  auto finish = [&](RuleStatus status, std::string note) {
    v.status = status;
    v.note = std::move(note);
    v.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return v;
  };
  // Found once for validation, the proof's member and the stated family: the
  // class finder is most of a rule's instantiations. A rule it cannot compile
  // cannot be encoded either (the caller says so).
  const std::vector<RuleFamily> families = rule_families(rule);
  RuleValidation validation;
  try {
    validation = validate_rule(*ctx_, rule, families, limits_.timeout_ms);
  } catch (const Error& e) {
    validation = {Validation::inconclusive, std::string("small-tensor validation failed: ") + e.what()};
  }
  if (validation.result == Validation::refuted) return finish(RuleStatus::refuted, validation.note);
  Proof proof = prover_.prove(at_generic_member(rule, families));
  v.proof_ms = proof.ms;
  if (proof.outcome == ProofOutcome::proved) {
    // Compiled without a family, the directions' classes are what size_family_of finds.
    if (!rule.family && !is_proven(rule.status)) v.family = stated_family(families);
    return finish(RuleStatus::verified, validation.note);
  }
  std::string why = proof.outcome == ProofOutcome::timeout ? "proof ran out of time or resources"
                                                           : "not entailed by the axioms";
  if (validation.result == Validation::passed)
    why += "; small-tensor validation passed";
  else
    why += "; " + validation.note;
  return finish(RuleStatus::unknown, why);
}

}  // namespace superopt::verify
