// The shapes a rule is checked at beyond its own: members of the family the
// matcher admits (runtime/rewrite/shape_facts.h), built by the rewrite engine's
// own instantiation (rule_instance.h). Dimensions that may change independently
// are found by trying them against the matcher, and each draw gives every such
// dimension a size different from the others', so that a rule true only when
// two sizes happen to be equal is tested with them different.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "runtime/db/rule_database.h"
#include "runtime/rewrite/rule_instance.h"
#include "runtime/rewrite/size_family.h"

namespace superopt::verify {

// One direction of a rule with its independent dimensions: the slots of each
// class must keep one size between them (or the matcher refuses the instance;
// runtime/rewrite/size_family.h finds them).
struct RuleFamily {
  DirectedRule rule;
  std::vector<Shape> own_shapes;
  std::vector<std::vector<Slot>> classes;
};

// The families of the directions the optimizer can apply (compile_rule); empty
// when neither can be matched.
std::vector<RuleFamily> rule_families(const Rule& rule);

// The size family a rule states when proven, from its directions' families
// (merged_family): size_family_of(rule) for a rule compiled without one.
SizeFamily stated_family(const std::vector<RuleFamily>& families);

struct DrawOptions {
  int count = 3;         // members wanted
  int64_t max_size = 0;  // largest size drawn; 0: enough for all classes to differ (at least 6)
  bool distinct = true;  // every class a size of its own (else any sizes in 1..max_size)
  uint64_t seed = 1;
};

// The member a proof is made at: every class that can takes a size of its
// own, a prime from 11 on (far from the rule's sizes, and a sum of some
// rarely equals a sum of others), one class at a time, the others kept. At
// the rule's own sizes a concat's part may meet another's by chance, and the
// encoding (tensor_theory.h) would let Z3 use that; here only what the family
// keeps equal is equal. nullopt when no class can move.
std::optional<RuleInstance> generic_instance(const RuleFamily& family);

// Members of the family other than the rule's own shapes, deterministic in the
// seed; fewer than asked when the draws (a bounded number of tries) find fewer.
std::vector<RuleInstance> draw_instances(const RuleFamily& family, const DrawOptions& options);

}  // namespace superopt::verify
