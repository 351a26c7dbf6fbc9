// A rule's family of sizes (rule_database.h SizeFamily): found from the rule by
// moving its dimensions against the matcher, written into both patterns of each
// direction, and checked where a rule is matched and where its target is built,
// so that a rule proven for sizes whose parts line up is applied only there.
#pragma once

#include <span>
#include <vector>

#include "runtime/rewrite/rewrite.h"

namespace superopt {

// A dimension of a directed rule's variable: variable v (Pattern::variable_names
// order), axis.
struct Slot {
  int variable = 0;
  int axis = 0;
  bool operator==(const Slot&) const = default;
};

// The classes of r's dimensions that share one size at `own` (the rule's
// variable shapes): each slot's smallest set of up to three that the matcher
// lets take a new size on its own is a class; what is left of a size, which
// moves only together, is one more. Classes of one slot move freely.
std::vector<std::vector<Slot>> independent_classes(const DirectedRule& r, const std::vector<Shape>& own);

// One direction's classes (independent_classes), as size families are made of them.
struct DirectionClasses {
  const DirectedRule* rule = nullptr;
  const std::vector<std::vector<Slot>>* classes = nullptr;
};

// The classes of two or more slots of the directions, merged where they
// overlap, by variable name.
SizeFamily merged_family(const std::vector<DirectionClasses>& directions);

// The family of a rule: merged_family of every direction the optimizer can
// apply (one that applies at its own shapes). Computed on the rule's graphs
// alone (its stated family is ignored).
SizeFamily size_family_of(const Rule& rule);

// Writes f into both patterns of d (Pattern::equal_sizes); throws Error when
// f names a variable d does not have.
void constrain(DirectedRule& d, const SizeFamily& f);

// Whether the tensors bound to p's variables (nodes < 0: unbound, skipped)
// have one size in each class of p's family.
bool sizes_fit_family(const Pattern& p, const Graph& g, std::span<const TensorRef> variables);

}  // namespace superopt
