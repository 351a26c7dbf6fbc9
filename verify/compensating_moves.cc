// Compensating moves over a rule's tied dimensions (see compensating_moves.h).
#include "verify/compensating_moves.h"

#include <algorithm>

namespace superopt::verify {
namespace {

// Slots that cannot take a new size alone (classes of two or more) are the
// ones a sum can tie; at most this many are tried, and at most this many
// instantiations per direction, so a rule costs a bounded, small time.
constexpr size_t kMaxTiedSlots = 12;
constexpr int kMaxTries = 48;

struct Move {
  Slot slot;
  int64_t delta = 0;
};

struct TiedSlot {
  Slot slot;
  size_t class_index = 0;
};

std::vector<TiedSlot> tied_slots(const RuleFamily& family) {
  std::vector<TiedSlot> tied;
  for (size_t c = 0; c < family.classes.size(); ++c)
    if (family.classes[c].size() > 1)
      for (Slot s : family.classes[c])
        if (tied.size() < kMaxTiedSlots) tied.push_back({s, c});
  return tied;
}

// The rule's own shapes with the moves applied; empty when a size would not
// stay positive.
std::vector<Shape> moved(const RuleFamily& family, const std::vector<Move>& moves) {
  std::vector<Shape> shapes = family.own_shapes;
  for (const Move& m : moves) {
    const int64_t size = shapes[m.slot.variable][m.slot.axis] + m.delta;
    if (size < 1) return {};
    shapes[m.slot.variable].set(m.slot.axis, size);
  }
  return shapes;
}

// Pairs (s +1, t -1) first, across classes before within one (slots of one
// class are usually tied by equality, which no such move keeps), then triples
// (s +2, t -1, u -1) and their mirror: every move keeps each sum that holds
// all of its slots.
std::vector<std::vector<Move>> candidate_moves(const std::vector<TiedSlot>& tied) {
  std::vector<std::vector<Move>> moves;
  const size_t n = tied.size();
  for (bool same_class : {false, true})
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        if (i != j && (tied[i].class_index == tied[j].class_index) == same_class)
          moves.push_back({{tied[i].slot, +1}, {tied[j].slot, -1}});
  for (int sign : {+1, -1})
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        for (size_t k = j + 1; k < n; ++k)
          if (i != j && i != k)
            moves.push_back({{tied[i].slot, 2 * sign}, {tied[j].slot, -sign}, {tied[k].slot, -sign}});
  return moves;
}

}  // namespace

std::vector<RuleInstance> compensating_instances(const RuleFamily& family, int count) {
  std::vector<RuleInstance> found;
  int tries = 0;
  for (const std::vector<Move>& m : candidate_moves(tied_slots(family))) {
    if (int(found.size()) >= count || tries >= kMaxTries) break;
    std::vector<Shape> shapes = moved(family, m);
    if (shapes.empty()) continue;
    ++tries;
    if (std::optional<RuleInstance> instance = instantiate(family.rule, shapes))
      found.push_back(std::move(*instance));
  }
  return found;
}

}  // namespace superopt::verify
