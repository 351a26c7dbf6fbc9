// Small-tensor validation of a rule, independent of the axioms: both sides run
// on small symbolic tensors at the rule's own shapes and at a second set of
// sizes; a difference, confirmed on concrete real numbers, refutes the rule.
#pragma once

#include <z3++.h>

#include <map>
#include <string>

#include "runtime/db/rule_database.h"

namespace superopt::verify {

enum class Validation : uint8_t { passed, refuted, inconclusive };

struct RuleValidation {
  Validation result = Validation::inconclusive;
  std::string note;  // refuted: the counterexample (shapes, output, element, values)
};

RuleValidation validate_rule(z3::context& ctx, const Rule& rule, unsigned timeout_ms);

// The graph with every dimension d of its sources and constants replaced by
// sizes.at(d) where present (kernel sizes are left alone by the caller's map).
// Throws Error when the new shapes do not fit the operators.
Graph with_dimensions_mapped(const Graph& g, const std::map<int64_t, int64_t>& sizes);

}  // namespace superopt::verify
