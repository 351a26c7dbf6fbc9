// Members of a rule's shape family where whole classes of tied dimensions
// change by different amounts that cancel: one class grows by 1 while another
// shrinks by 1, or one by 2 while two shrink by 1. The matcher asks only that
// some sums agree (the operands of ewmul over two concats have equal rows), so
// a class that cannot take a new size alone may still move with another that
// compensates; the draws of rule_family.h move one class at a time and never
// reach those members. Moves stay inside the family: every class keeps one
// size, which is what the rule's stated family (size_family.h) asks.
#pragma once

#include <vector>

#include "verify/rule_family.h"

namespace superopt::verify {

// A change of one unit of a rule's dimensions: a class, or one dimension.
struct UnitMove {
  size_t unit = 0;
  int64_t delta = 0;
};

// Moves over the units named, whose amounts cancel: pairs (a +1, b -1), then
// triples (a +2, b -1, c -1) and their mirror; each keeps every sum that holds
// all of its units.
struct CancellingMoves {
  std::vector<std::vector<UnitMove>> pairs, triples;
};
CancellingMoves cancelling_moves(const std::vector<size_t>& units);

// `own` with every slot of each moved unit changed by its delta; empty when a
// size would not stay positive.
std::vector<Shape> moved_shapes(const std::vector<Shape>& own, const std::vector<std::vector<Slot>>& units,
                                const std::vector<UnitMove>& moves);

struct CompensatingMembers {
  std::vector<RuleInstance> members;
  int64_t moves = 0;     // moves there are over the tied classes
  int64_t tried = 0;     // of which instantiated
  bool bounded = false;  // more than kMaxMoves: `tried` of them drawn at random (fixed seed)
};

// Every such move over the classes that cannot move alone (or, past a bound,
// a fixed-seed random sample of them, the same on every rank and every run),
// and the members the matcher admits, up to `count`.
CompensatingMembers compensating_instances(const RuleFamily& family, int count);

}  // namespace superopt::verify
