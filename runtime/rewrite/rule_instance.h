// Members of a rule's shape family: both sides of a directed rule built over
// variables of new shapes, by the same instantiation the rewrite engine uses
// when it applies the rule (constants and merge_groups' parameters derived from
// the shapes), and kept only when the matcher admits the source.
#pragma once

#include <optional>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/rewrite/rewrite.h"

namespace superopt {

struct RuleInstance {
  Graph source, target;  // over the same variable names
};

// The shapes the rule's variables were found at, in Pattern::variable_names order.
std::vector<Shape> rule_variable_shapes(const DirectedRule& r);

// Both sides of r with variable v of shape variable_shapes[v]; nullopt unless
// the source builds, the matcher finds r.source in it over exactly those
// variables, and the target builds with the same output shapes (the instance
// is one where the optimizer would apply r).
std::optional<RuleInstance> instantiate(const DirectedRule& r, const std::vector<Shape>& variable_shapes);

}  // namespace superopt
