// Applying a rule at an occurrence: build the target over the matched tensors
// (constants re-derive their shapes from the tensors they meet), check that the
// outputs keep their shapes, refuse cycles (TASO Figure 6), drop dead nodes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/db/rule_database.h"
#include "runtime/rewrite/matcher.h"
#include "runtime/rewrite/pattern.h"
#include "runtime/rewrite/target_builder.h"

namespace superopt {

// A rule in one direction, compiled for matching (source) and building (target).
struct DirectedRule {
  int rule = -1;          // index in the rule list
  bool reversed = false;  // target -> source
  Pattern source;
  Pattern target;
  std::string label;  // "17: matmul,matmul -> concat,matmul,split"
};

// Both directions of a rule that can be matched (see unmatchable_reason); a
// direction whose target reads a variable its source lacks is left out too.
// Each is constrained to the rule's size family (size_family.h): the one the
// rule states, or for a proven rule that states none (a file from before
// families), the one size_family_of finds.
std::vector<DirectedRule> compile_rule(const Rule& rule, int index);
// The same without any size family: where a family is being found or checked.
std::vector<DirectedRule> compile_rule_unconstrained(const Rule& rule, int index);

// The target's operators alone, built over stand-ins for the matched tensors
// (weight-only ones stand in as weights, so that a cost model sees precomputed
// operators as such); nullopt when the target does not build that way.
std::optional<Graph> build_target_alone(const Graph& g, const Match& m, const DirectedRule& r,
                                        const std::vector<bool>& weight_only);

// The graph with the occurrence replaced, or nullopt (and *why, when given).
std::optional<Graph> apply_rule(const Graph& g, const Match& m, const DirectedRule& r,
                                RewriteFailure* why = nullptr);

}  // namespace superopt
