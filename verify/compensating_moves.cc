// Compensating moves over a rule's tied classes (see compensating_moves.h).
#include "verify/compensating_moves.h"

#include <algorithm>
#include <random>

namespace superopt::verify {
namespace {

// Moves instantiated per direction at most; past it a random sample with this
// seed, so that a rule gets the same members on every rank and every run.
constexpr size_t kMaxMoves = 160;
constexpr uint64_t kMoveSeed = 0xc0de;

struct Move {
  size_t class_index = 0;
  int64_t delta = 0;
};

// The rule's own shapes with each moved class changed by its delta; empty when
// a size would not stay positive.
std::vector<Shape> moved(const RuleFamily& family, const std::vector<Move>& moves) {
  std::vector<Shape> shapes = family.own_shapes;
  for (const Move& m : moves)
    for (Slot s : family.classes[m.class_index]) {
      const int64_t size = family.own_shapes[s.variable][s.axis] + m.delta;
      if (size < 1) return {};
      shapes[s.variable].set(s.axis, size);
    }
  return shapes;
}

// Classes that cannot take the next size up or down on their own: the ones a
// sum ties to others. A class that can is moved by the draws already.
std::vector<size_t> tied_classes(const RuleFamily& family) {
  std::vector<size_t> tied;
  for (size_t c = 0; c < family.classes.size(); ++c) {
    bool alone = false;
    for (int64_t delta : {+1, -1}) {
      std::vector<Shape> shapes = moved(family, {{c, delta}});
      alone = alone || (!shapes.empty() && instantiate(family.rule, shapes));
    }
    if (!alone) tied.push_back(c);
  }
  return tied;
}

// Pairs (c +1, d -1), then triples (c +2, d -1, e -1) and their mirror: every
// move keeps each sum that holds all of its classes.
std::vector<std::vector<Move>> candidate_moves(const std::vector<size_t>& tied) {
  std::vector<std::vector<Move>> moves;
  const size_t n = tied.size();
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (i != j) moves.push_back({{tied[i], +1}, {tied[j], -1}});
  for (int64_t sign : {+1, -1})
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        for (size_t k = j + 1; k < n; ++k)
          if (i != j && i != k) moves.push_back({{tied[i], 2 * sign}, {tied[j], -sign}, {tied[k], -sign}});
  return moves;
}

}  // namespace

CompensatingMembers compensating_instances(const RuleFamily& family, int count) {
  CompensatingMembers out;
  std::vector<std::vector<Move>> moves = candidate_moves(tied_classes(family));
  out.moves = int64_t(moves.size());
  if (moves.size() > kMaxMoves) {
    std::mt19937_64 rng(kMoveSeed);
    std::shuffle(moves.begin(), moves.end(), rng);
    moves.resize(kMaxMoves);
    out.bounded = true;
  }
  for (const std::vector<Move>& m : moves) {
    if (int(out.members.size()) >= count) break;
    std::vector<Shape> shapes = moved(family, m);
    if (shapes.empty()) continue;
    ++out.tried;
    if (std::optional<RuleInstance> instance = instantiate(family.rule, shapes))
      out.members.push_back(std::move(*instance));
  }
  return out;
}

}  // namespace superopt::verify
