// Derivations as proofs (rule_database.h): replaying one checks every step
// independently of how it was found: the rule it uses is proven and comes
// before the derived one, the matcher finds the rule at the stored site (so
// every matching condition holds), and the two sides end computing the same
// outputs (same_outputs: the same operator trees, whatever they share).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/db/rule_database.h"
#include "runtime/rewrite/rewrite.h"

namespace superopt {

// A match as a derivation step stores it, and back: the occurrence of r in g at
// the step's site and variables, if the matcher finds one there.
void record_site(const Match& m, DerivationStep& step);
std::optional<Match> occurrence_at(const Graph& g, const DirectedRule& r, const DerivationStep& step);

// Why rule `index`'s derivation is not a proof ("step 2: rule 17 is refuted";
// per output: "output 1, step 4: ..."), or nullopt when it is one. A
// per-output derivation is replayed output by output on each output's
// single-output rule (output_rule.h), whose sides its steps must make meet.
std::optional<std::string> derivation_error(const std::vector<Rule>& rules, int64_t index);

// Derived rules whose derivation uses a rule that is no longer proven (refuted,
// unknown, or itself invalidated) become candidates again, transitively; returns
// how many did.
int64_t invalidate_broken_derivations(std::vector<Rule>& rules);

}  // namespace superopt
