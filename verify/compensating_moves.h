// Members of a rule's shape family where tied dimensions change by different
// amounts that cancel: one grows by 1 while another shrinks by 1, or one by 2
// while two shrink by 1. The matcher asks only that some sums agree (the
// operands of ewmul over two concats have equal rows), so it admits members
// where parts of a sum differ while the sum stays; the draws of rule_family.h
// move whole classes to new sizes and never reach them.
#pragma once

#include <vector>

#include "verify/rule_family.h"

namespace superopt::verify {

// Up to `count` such members, tried against the matcher (instantiate) in a
// fixed order within a bounded number of tries: the same members on every
// rank and every run.
std::vector<RuleInstance> compensating_instances(const RuleFamily& family, int count);

}  // namespace superopt::verify
