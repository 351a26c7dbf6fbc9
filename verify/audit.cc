// The soundness sweep over a database's proven rules (see audit.h).
#include "verify/audit.h"

#include <algorithm>
#include <random>

#include "runtime/core/error.h"
#include "verify/compensating_moves.h"
#include "verify/rule_family.h"
#include "verify/rule_validation.h"
#include "verify/symbolic_compare.h"

namespace superopt::verify {
namespace {

// The largest size a draw gives a class: small enough to evaluate in double
// quickly, large enough for many classes to differ.
constexpr int64_t kMaxDrawnSize = 9;
// Dimension moves tried per direction at most: past it a fixed-seed sample.
constexpr size_t kMaxSlotMoves = 600;

// Moves of single dimensions whose amounts cancel (compensating_moves.h's
// cancelling_moves, each dimension a unit), over the dimensions of classes of
// two or more: the classes move together in the draws, but the matcher admits
// whatever the stated family admits, which for a rule stated "any" is every
// size its operators accept, such as a concat's parts shifting while their sum
// stays. Pairs first, then triples, each shuffled with the seed, cut at
// kMaxSlotMoves.
std::vector<RuleInstance> slot_moves(const RuleFamily& family, int count, uint64_t seed) {
  std::vector<std::vector<Slot>> slots;  // one unit each
  for (const std::vector<Slot>& c : family.classes)
    if (c.size() > 1)
      for (Slot s : c) slots.push_back({s});
  std::vector<size_t> units(slots.size());
  for (size_t i = 0; i < units.size(); ++i) units[i] = i;
  CancellingMoves cancelling = cancelling_moves(units);
  std::mt19937_64 rng(seed);
  std::shuffle(cancelling.pairs.begin(), cancelling.pairs.end(), rng);
  std::shuffle(cancelling.triples.begin(), cancelling.triples.end(), rng);
  std::vector<std::vector<UnitMove>> moves = std::move(cancelling.pairs);
  moves.insert(moves.end(), cancelling.triples.begin(), cancelling.triples.end());
  if (moves.size() > kMaxSlotMoves) moves.resize(kMaxSlotMoves);
  std::vector<RuleInstance> found;
  for (const std::vector<UnitMove>& m : moves) {
    if (int(found.size()) >= count) break;
    std::vector<Shape> shapes = moved_shapes(family.own_shapes, slots, m);
    if (shapes.empty()) continue;
    if (std::optional<RuleInstance> instance = instantiate(family.rule, shapes))
      found.push_back(std::move(*instance));
  }
  return found;
}

std::optional<std::string> difference_at(const RuleInstance& m, const std::string& how) {
  std::optional<std::string> witness = concrete_difference(m.source, m.target);
  if (!witness) return std::nullopt;
  return "differs at " + source_shapes(m.source) + " (" + how + "): " + *witness;
}

// Members of one direction's family: every class a size of its own, then any
// sizes (where classes may meet), then the compensating moves.
std::vector<std::pair<RuleInstance, std::string>> members(const RuleFamily& family, const AuditOptions& o) {
  std::vector<std::pair<RuleInstance, std::string>> all;
  for (RuleInstance& m : draw_instances(family, {.count = o.draws, .seed = o.seed}))
    all.emplace_back(std::move(m), "drawn, every class a size of its own");
  for (RuleInstance& m : draw_instances(
           family, {.count = o.draws, .max_size = kMaxDrawnSize, .distinct = false, .seed = o.seed + 1}))
    all.emplace_back(std::move(m), "drawn, any sizes");
  for (RuleInstance& m : compensating_instances(family, o.draws).members)
    all.emplace_back(std::move(m), "tied classes moved by amounts that cancel");
  for (RuleInstance& m : slot_moves(family, 2 * o.draws, o.seed))
    all.emplace_back(std::move(m), "tied dimensions moved by amounts that cancel");
  return all;
}

}  // namespace

std::optional<std::string> audit_rule(const Rule& rule, const AuditOptions& options) {
  if (std::optional<std::string> witness = concrete_difference(rule.source, rule.target))
    return "differs at its own shapes " + source_shapes(rule.source) + ": " + *witness;
  for (const RuleFamily& family : rule_families(rule))
    for (const auto& [member, how] : members(family, options)) {
      try {
        if (std::optional<std::string> why = difference_at(member, how)) return why;
      } catch (const Error&) {
        // A member that cannot run in double (values beyond range) says nothing.
      }
    }
  return std::nullopt;
}

}  // namespace superopt::verify
