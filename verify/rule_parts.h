// A rule as a product of smaller ones: when each side computes its outputs by
// subgraphs that share no operator (only inputs and weights), and both sides
// group the outputs alike, the rule is one smaller rule per group applied side
// by side. Splitting it lets each part be derived on its own (derive.h,
// derive_by_parts), where a search over the whole rule would need the sum of
// the parts' steps within one bound.
#pragma once

#include <vector>

#include "runtime/db/rule_database.h"

namespace superopt::verify {

// For every node of g, which part of g it belongs to: operators joined by an
// edge are in one part; inputs, weights and constants belong to none (-1),
// since they are shared leaves, not computation.
std::vector<int> operator_parts(const Graph& g);

// The parts of `rule`, one rule per group of outputs (in the order of their
// first output), each side keeping the operators that group's outputs need and
// its inputs; empty when the rule is not a product: one group, an output that
// is an input, or sides that group their outputs differently.
std::vector<Rule> rule_parts(const Rule& rule);

}  // namespace superopt::verify
