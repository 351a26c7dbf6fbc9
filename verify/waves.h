// Waves: verify decides the rules of one size in consecutive chunks of the
// derivation order, so that a rule can be derived from rules of its own size
// proven in an earlier chunk instead of going to Z3 (at 3 operators ~70 % of
// the rules Z3 decided were derivable from same-size rules).
#pragma once

#include <cstddef>
#include <vector>

#include "runtime/db/rule_database.h"

namespace superopt::verify {

struct Wave {
  size_t first_position = 0;  // in the derivation order: every proven rule before it may be used
  std::vector<int> todo;      // the wave's undecided rules (candidate or unknown), in derivation order
};

// The undecided rules of `order` (derivation_sequence) in waves: a wave never
// spans two sizes (operators on both sides) and holds at most `wave_rules`
// consecutive rules of `order`, decided or not (0: a whole size). The
// boundaries depend on positions only, not on which rules are still
// undecided, so a resumed run cuts its waves where the killed one did and
// derives from the same rules. Waves with nothing to decide are left out.
std::vector<Wave> undecided_waves(const std::vector<Rule>& rules, const std::vector<int>& order,
                                  int wave_rules);

}  // namespace superopt::verify
