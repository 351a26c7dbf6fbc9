// Joint switches of the classes a tuple class's projections sit in (see tuple_switch.h).
#include "runtime/egraph/tuple_switch.h"

#include <map>
#include <optional>
#include <utility>

namespace superopt::egraph {
namespace {

// The DAG cost of a choice, or nullopt when it has a cycle or a reachable
// class has no choice (build_graph would refuse it).
std::optional<double> acyclic_cost_ms(const EGraph& eg, const std::vector<double>& cost_ms,
                                      const std::vector<ClassId>& roots,
                                      const std::vector<NodeIndex>& choice) {
  enum : char { unvisited, open, done };
  std::vector<char> state(choice.size(), unvisited);
  double total = 0;
  for (ClassId root : roots) {
    // Iterative depth-first search; a class met again while open closes a cycle.
    std::vector<std::pair<ClassId, size_t>> stack{{eg.find(root), 0}};
    while (!stack.empty()) {
      auto& [c, next_child] = stack.back();
      if (next_child == 0) {
        if (state[c] == done) {
          stack.pop_back();
          continue;
        }
        if (state[c] == open || choice[c] < 0) return std::nullopt;
        state[c] = open;
        total += cost_ms[choice[c]];
      }
      const std::vector<ClassId>& children = eg.node(choice[c]).children;
      if (next_child < children.size()) {
        const ClassId child = eg.find(children[next_child++]);
        if (state[child] == open) return std::nullopt;
        if (state[child] == unvisited) stack.push_back({child, 0});
        continue;
      }
      state[c] = done;
      stack.pop_back();
    }
  }
  return total;
}

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
  std::optional<double> cost = acyclic_cost_ms(eg, cost_ms, roots, best.choice);
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
      const std::optional<double> c = acyclic_cost_ms(eg, cost_ms, roots, trial);
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
