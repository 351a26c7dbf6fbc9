// Joint switches of the classes a tuple class's projections sit in (see tuple_switch.h).
#include "runtime/egraph/tuple_switch.h"

#include <map>
#include <optional>
#include <utility>

namespace superopt::egraph {
namespace {

// Per tuple class, the projection e-nodes of it: (the class each sits in, the e-node).
std::map<ClassId, std::vector<std::pair<ClassId, NodeIndex>>> projections_by_tuple(const EGraph& eg) {
  std::map<ClassId, std::vector<std::pair<ClassId, NodeIndex>>> out;
  for (ClassId c : eg.class_ids())
    for (NodeIndex n : eg.eclass(c).nodes)
      if (eg.node(n).is_projection()) out[eg.find(eg.node(n).children[0])].push_back({c, n});
  return out;
}

}  // namespace

Extraction switch_tuples(const EGraph& eg, const std::vector<double>& cost_ms,
                         const std::vector<ClassId>& roots, const Extraction& start, int max_passes) {
  Extraction best = start;
  std::optional<double> cost = acyclic_choice_cost_ms(eg, cost_ms, roots, best.choice);
  if (!cost) return start;
  best.cost_ms = *cost;
  const auto tuples = projections_by_tuple(eg);
  for (int pass = 0; pass < max_passes; ++pass) {
    bool kept = false;
    for (const auto& [tuple, projections] : tuples) {
      if (best.choice[tuple] < 0) continue;  // the tuple itself has no e-node to compute it
      std::vector<NodeIndex> trial = best.choice;
      bool differs = false;
      for (const auto& [c, n] : projections) differs |= std::exchange(trial[c], n) != n;
      if (!differs) continue;
      const std::optional<double> c = acyclic_choice_cost_ms(eg, cost_ms, roots, trial);
      // A relative margin, so that rounding alone never switches.
      if (c && *c < best.cost_ms * (1 - 1e-9)) {
        best.choice = std::move(trial);
        best.cost_ms = *c;
        kept = true;
      }
    }
    if (!kept) break;
  }
  return best;
}

}  // namespace superopt::egraph
