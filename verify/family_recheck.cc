// Re-checking stored verdicts over the verifier pool (see family_recheck.h).
#include "verify/family_recheck.h"

#include "runtime/rewrite/derivation.h"
#include "verify/derive.h"
#include "verify/rule_validation.h"
#include "verify/verifier_pool.h"

namespace superopt::verify {

RecheckSummary recheck_families(const MpiWorld& world, std::vector<Rule>& rules, bool verified_too) {
  RecheckSummary summary;
  std::vector<int> todo;
  for (size_t k = 0; k < rules.size(); ++k)
    if (rules[k].status == RuleStatus::derived || (verified_too && rules[k].status == RuleStatus::verified))
      todo.push_back(int(k));
  // Only a failure travels back; a passing rule keeps what it had.
  auto check = [&](int k) {
    RuleVerdict v{rules[k].status, 0, 0, "", {}};
    if (std::optional<std::string> why = family_difference(rules[k]))
      v = RuleVerdict{RuleStatus::refuted, 0, 0, *why, {}};
    return v;
  };
  auto record = [&](int k, const RuleVerdict& v) {
    if (v.status != RuleStatus::refuted) return;
    rules[k].status = RuleStatus::refuted;
    rules[k].note = v.note;
    rules[k].derivation.clear();
    rules[k].family.reset();  // stated with the proof, gone with it
  };
  run_verifier_pool(world, todo, check, record);
  share_results(&world, rules, todo);
  summary.checked = int64_t(todo.size());
  summary.refuted = 0;  // counted again from the shared statuses, the same on every rank
  for (int k : todo) summary.refuted += rules[k].status == RuleStatus::refuted;
  summary.invalidated = invalidate_broken_derivations(rules);
  return summary;
}

}  // namespace superopt::verify
