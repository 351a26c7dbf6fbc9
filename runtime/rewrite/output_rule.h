// The single-output rule of one output of a rule: a multi-output rule holds
// exactly when each source output equals its aligned target output as a
// function of the inputs, so a proof per output is a proof of the whole rule
// (derivation.h replays such proofs). Each side keeps only what that output
// needs (its cone) and every input, so both sides still read the same inputs.
#pragma once

#include <vector>

#include "runtime/db/rule_database.h"

namespace superopt {

// g computing only its outputs at the given positions, in that order: the
// operators they need, their weights and constants, and every input of g.
// Deterministic (g's node order, renumbered), since stored derivation sites
// refer to the result's node indices.
Graph graph_of_outputs(const Graph& g, const std::vector<int>& outputs);

// The rule whose sides compute only `output` of rule's (0 <= output < the
// number of outputs); status candidate, no derivation.
Rule output_rule(const Rule& rule, int output);

}  // namespace superopt
