// Redundancy of an axiom set: whether an axiom is entailed by the others (a
// proof with Z3 from the other axioms, as rules are proved).
#pragma once

#include <z3++.h>

#include <string>
#include <vector>

#include "verify/axiom_set.h"

namespace superopt::verify {

enum class Redundancy : uint8_t { redundant, independent, undecided };
std::string_view redundancy_name(Redundancy r);

struct RedundancyCheck {
  std::string name;
  Redundancy result = Redundancy::undecided;
  std::string reason;             // independent or undecided: what Z3 said
  std::vector<std::string> from;  // redundant: the axioms its proof used (an unsat core)
  double ms = 0;
};

// Whether axioms.axioms[index] follows from the other axioms (those a proof about
// its operators may use: AxiomSet::theory_for): a fresh solver
// holds them and the negation of an instance of the axiom at fresh constants;
// unsat means redundant. "Independent" means Z3 found no proof (a model, or its
// instances ran out); "undecided" that it ran out of time or resources first.
RedundancyCheck check_redundancy(z3::context& ctx, const AxiomSet& axioms, size_t index, unsigned timeout_ms,
                                 unsigned rlimit);

}  // namespace superopt::verify
