// The soundness sweep over a database's proven rules (see audit.h).
#include "verify/audit.h"

#include "runtime/core/error.h"
#include "verify/compensating_moves.h"
#include "verify/rule_family.h"
#include "verify/rule_validation.h"
#include "verify/symbolic_compare.h"

namespace superopt::verify {
namespace {

// The largest size a draw gives a class: small enough to evaluate in double
// quickly, large enough for many classes to differ.
constexpr int64_t kMaxDrawnSize = 9;

std::optional<std::string> difference_at(const RuleInstance& m, const std::string& how) {
  std::optional<std::string> witness = concrete_difference(m.source, m.target);
  if (!witness) return std::nullopt;
  return "differs at " + source_shapes(m.source) + " (" + how + "): " + *witness;
}

// Members of one direction's family: every class a size of its own, then any
// sizes (where classes may meet), then the compensating moves.
std::vector<std::pair<RuleInstance, std::string>> members(const RuleFamily& family, const AuditOptions& o) {
  std::vector<std::pair<RuleInstance, std::string>> all;
  for (RuleInstance& m : draw_instances(family, {.count = o.draws, .seed = o.seed}))
    all.emplace_back(std::move(m), "drawn, every class a size of its own");
  for (RuleInstance& m : draw_instances(
           family, {.count = o.draws, .max_size = kMaxDrawnSize, .distinct = false, .seed = o.seed + 1}))
    all.emplace_back(std::move(m), "drawn, any sizes");
  for (RuleInstance& m : compensating_instances(family, o.draws).members)
    all.emplace_back(std::move(m), "tied sizes moved by amounts that cancel");
  return all;
}

}  // namespace

std::optional<std::string> audit_rule(const Rule& rule, const AuditOptions& options) {
  if (std::optional<std::string> witness = concrete_difference(rule.source, rule.target))
    return "differs at its own shapes " + source_shapes(rule.source) + ": " + *witness;
  for (const RuleFamily& family : rule_families(rule))
    for (const auto& [member, how] : members(family, options)) {
      try {
        if (std::optional<std::string> why = difference_at(member, how)) return why;
      } catch (const Error&) {
        // A member that cannot run in double (values beyond range) says nothing.
      }
    }
  return std::nullopt;
}

}  // namespace superopt::verify
