// Compensating moves over a rule's tied classes (see compensating_moves.h).
#include "verify/compensating_moves.h"

#include <algorithm>
#include <random>

namespace superopt::verify {

CancellingMoves cancelling_moves(const std::vector<size_t>& units) {
  CancellingMoves moves;
  const size_t n = units.size();
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (i != j) moves.pairs.push_back({{units[i], +1}, {units[j], -1}});
  for (int64_t sign : {+1, -1})
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        for (size_t k = j + 1; k < n; ++k)
          if (i != j && i != k)
            moves.triples.push_back({{units[i], 2 * sign}, {units[j], -sign}, {units[k], -sign}});
  return moves;
}

std::vector<Shape> moved_shapes(const std::vector<Shape>& own, const std::vector<std::vector<Slot>>& units,
                                const std::vector<UnitMove>& moves) {
  std::vector<Shape> shapes = own;
  for (const UnitMove& m : moves)
    for (Slot s : units[m.unit]) {
      const int64_t size = own[s.variable][s.axis] + m.delta;
      if (size < 1) return {};
      shapes[s.variable].set(s.axis, size);
    }
  return shapes;
}

namespace {

// Moves instantiated per direction at most; past it a random sample with this
// seed, so that a rule gets the same members on every rank and every run.
constexpr size_t kMaxMoves = 160;
constexpr uint64_t kMoveSeed = 0xc0de;

// Classes that cannot take the next size up or down on their own: the ones a
// sum ties to others. A class that can is moved by the draws already.
std::vector<size_t> tied_classes(const RuleFamily& family) {
  std::vector<size_t> tied;
  for (size_t c = 0; c < family.classes.size(); ++c) {
    bool alone = false;
    for (int64_t delta : {+1, -1}) {
      std::vector<Shape> shapes = moved_shapes(family.own_shapes, family.classes, {{c, delta}});
      alone = alone || (!shapes.empty() && instantiate(family.rule, shapes));
    }
    if (!alone) tied.push_back(c);
  }
  return tied;
}

}  // namespace

CompensatingMembers compensating_instances(const RuleFamily& family, int count) {
  CompensatingMembers out;
  CancellingMoves cancelling = cancelling_moves(tied_classes(family));
  std::vector<std::vector<UnitMove>> moves = std::move(cancelling.pairs);
  moves.insert(moves.end(), cancelling.triples.begin(), cancelling.triples.end());
  out.moves = int64_t(moves.size());
  if (moves.size() > kMaxMoves) {
    std::mt19937_64 rng(kMoveSeed);
    std::shuffle(moves.begin(), moves.end(), rng);
    moves.resize(kMaxMoves);
    out.bounded = true;
  }
  for (const std::vector<UnitMove>& m : moves) {
    if (int(out.members.size()) >= count) break;
    std::vector<Shape> shapes = moved_shapes(family.own_shapes, family.classes, m);
    if (shapes.empty()) continue;
    ++out.tried;
    if (std::optional<RuleInstance> instance = instantiate(family.rule, shapes))
      out.members.push_back(std::move(*instance));
  }
  return out;
}

}  // namespace superopt::verify
