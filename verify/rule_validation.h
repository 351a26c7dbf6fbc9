// Concrete and small-tensor checks of a rule, independent of the axioms, over
// the family of shapes the optimizer applies it to (rule_family.h): output
// shapes at the rule's own shapes, evaluation in double at its own shapes and at
// drawn members where every independent dimension differs, then both sides on
// small symbolic tensors. A difference on concrete real numbers refutes.
// Members are drawn with every class at a new size (rule_family.h) and with
// tied sizes changed by amounts that cancel (compensating_moves.h).
#pragma once

#include <z3++.h>

#include <optional>
#include <string>
#include <vector>

#include "runtime/db/rule_database.h"
#include "verify/rule_family.h"

namespace superopt::verify {

enum class Validation : uint8_t { passed, refuted, inconclusive };

struct RuleValidation {
  Validation result = Validation::inconclusive;
  std::string note;  // refuted: the counterexample (shapes, output, element, values)
};

RuleValidation validate_rule(z3::context& ctx, const Rule& rule, unsigned timeout_ms);
// The same over families the caller already has (rule_families(rule)).
RuleValidation validate_rule(z3::context& ctx, const Rule& rule, const std::vector<RuleFamily>& families,
                             unsigned timeout_ms);

// The concrete part of validate_rule alone (no symbolic check, no Z3): the
// refutation's note when the rule differs at its own shapes or at a member of
// its family, else nullopt. A derivation proves a rule at its own shapes only,
// while the optimizer applies it at every member: derived rules must pass this.
std::optional<std::string> family_difference(const Rule& rule);
std::optional<std::string> family_difference_in(const Rule& rule, const std::vector<RuleFamily>& families);

// The first difference between two graphs over the same names, evaluated in
// double on seeded random values, three draws in [-1, 1) and one 16 times wider
// (past relu6's and hardswish's clamps) (output count, shapes, then elements
// beyond rounding); nullopt when they agree. Throws Error when a graph cannot run.
std::optional<std::string> concrete_difference(const Graph& a, const Graph& b);

}  // namespace superopt::verify
