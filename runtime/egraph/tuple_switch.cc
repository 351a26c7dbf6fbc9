// Joint switches of the classes a tuple class's projections sit in (see tuple_switch.h).
#include "runtime/egraph/tuple_switch.h"

#include <algorithm>
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

// The switch of tuple class `tuple` in `trial`: its projections' classes take
// them; with `nested`, so do those of every tuple class computed from one of
// those classes (the e-node doing it chosen), transitively: a merge of three
// matmuls is split twice (split(split(matmul(x, concat(W1, concat(W2, W3)))))),
// and the outer switch pays only with the inner one. False when nothing changes.
bool switch_into(const EGraph& eg,
                 const std::map<ClassId, std::vector<std::pair<ClassId, NodeIndex>>>& tuples, ClassId tuple,
                 bool nested, std::vector<NodeIndex>& trial) {
  bool differs = false;
  std::vector<ClassId> work{tuple}, done;
  while (!work.empty()) {
    const ClassId t = work.back();
    work.pop_back();
    if (std::find(done.begin(), done.end(), t) != done.end()) continue;
    done.push_back(t);
    auto it = tuples.find(t);
    if (it == tuples.end()) continue;
    for (const auto& [c, n] : it->second) {
      differs |= std::exchange(trial[c], n) != n;
      if (!nested) continue;
      for (NodeIndex p : eg.eclass(c).parents) {
        if (eg.is_projection(p) || op_info(eg.op_of(p)).num_outputs < 2 || !eg.listed(p)) continue;
        const ClassId inner = eg.class_of(p);
        if (std::find(done.begin(), done.end(), inner) != done.end()) continue;
        differs |= std::exchange(trial[inner], p) != p;
        work.push_back(inner);
      }
    }
  }
  return differs;
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
      (void)projections;
      if (best.choice[tuple] < 0) continue;  // the tuple itself has no e-node to compute it
      for (bool nested : {false, true}) {
        std::vector<NodeIndex> trial = best.choice;
        if (!switch_into(eg, tuples, tuple, nested, trial)) continue;
        if (nested && trial == best.choice) continue;
        const std::optional<double> c = acyclic_choice_cost_ms(eg, cost_ms, roots, trial);
        // A relative margin, so that rounding alone never switches.
        if (c && *c < best.cost_ms * (1 - 1e-9)) {
          best.choice = std::move(trial);
          best.cost_ms = *c;
          kept = true;
          break;
        }
      }
    }
    if (!kept) break;
  }
  return best;
}

}  // namespace superopt::egraph
