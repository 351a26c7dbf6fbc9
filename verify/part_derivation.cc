// derive_by_parts() (see derive.h): a product rule derived one part at a time,
// then proved on the whole graph by a search narrowed to what the parts used.
#include <algorithm>
#include <set>
#include <utility>

#include "runtime/core/graph_hash.h"
#include "verify/derive.h"
#include "verify/rule_parts.h"

namespace superopt::verify {
namespace {

// The steps of the parts' derivations: which rule directions, and how many
// on each side.
struct PartSteps {
  std::set<std::pair<int, bool>> directions;  // (rule, reversed)
  int on_source = 0;
  int on_target = 0;
};

// The steps every part needs, or nullopt when one does not derive.
std::optional<PartSteps> derive_parts(const std::vector<Rule>& parts, const ProvenRules& proven,
                                      const DeriveOptions& o, int first_n) {
  PartSteps steps;
  for (const Rule& part : parts) {
    // A part both sides compute alike is carried along unchanged.
    if (structurally_equal(part.source, part.target)) continue;
    std::optional<FoundDerivation> d = derive_rule(part, proven, o, first_n);
    if (!d) return std::nullopt;
    for (const DerivationStep& s : d->steps) {
      steps.directions.insert({int(s.rule), s.reversed});
      ++(s.on_target ? steps.on_target : steps.on_source);
    }
  }
  return steps;
}

// The directions of `wanted`, copied from the proven rules' index.
RuleIndex index_of(const std::set<std::pair<int, bool>>& wanted, const ProvenRules& proven) {
  RuleIndex index;
  for (auto [rule, reversed] : wanted) {
    if (rule < 0 || rule >= int(proven.first_position.size()) || proven.first_position[rule] < 0) continue;
    for (size_t p = size_t(proven.first_position[rule]);
         p < proven.index.rules.size() && proven.index.rules[p].rule == rule; ++p)
      if (proven.index.rules[p].reversed == reversed) index.add(proven.index.rules[p]);
  }
  return index;
}

}  // namespace

std::optional<Derivation> derive_by_parts(const Rule& rule, const ProvenRules& proven, const DeriveOptions& o,
                                          int first_n) {
  const std::vector<Rule> parts = rule_parts(rule);
  if (parts.empty()) return std::nullopt;
  const std::optional<PartSteps> steps = derive_parts(parts, proven, o, first_n);
  if (!steps || steps->directions.empty()) return std::nullopt;
  MeetingBounds bounds;
  bounds.source_levels = steps->on_source;
  bounds.target_levels = steps->on_target;
  // Each part may grow by max_extra_ops on its way, all at once.
  bounds.max_ops = std::max(rule.source.num_operators(), rule.target.num_operators()) +
                   o.max_extra_ops * int(parts.size());
  bounds.max_graphs = o.max_graphs;
  return find_meeting(rule, index_of(steps->directions, proven), bounds);
}

}  // namespace superopt::verify
