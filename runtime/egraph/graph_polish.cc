// One-class switches kept by the built graph's cost (see graph_polish.h).
#include "runtime/egraph/graph_polish.h"

#include <optional>
#include <utility>

namespace superopt::egraph {
namespace {

// The classes `choice` reaches from the roots, each once, parents before children.
std::vector<ClassId> reached_classes(const EGraph& eg, const std::vector<ClassId>& roots,
                                     const std::vector<NodeIndex>& choice) {
  std::vector<char> seen(choice.size(), 0);
  std::vector<ClassId> order, stack;
  for (ClassId r : roots) stack.push_back(eg.find(r));
  while (!stack.empty()) {
    const ClassId c = stack.back();
    stack.pop_back();
    if (seen[c] || choice[c] < 0) continue;
    seen[c] = 1;
    order.push_back(c);
    for (ClassId child : eg.node(choice[c]).children) stack.push_back(eg.find(child));
  }
  return order;
}

bool children_chosen(const EGraph& eg, NodeIndex n, const std::vector<NodeIndex>& choice) {
  for (ClassId child : eg.node(n).children)
    if (choice[eg.find(child)] < 0) return false;
  return true;
}

// graph_cost_ms of the graph `choice` builds; nullopt when it has a cycle (the
// cheap check on e-node costs first) or does not build.
std::optional<double> built_cost_ms(const EGraph& eg, const Graph& seed_graph,
                                    const std::vector<ClassId>& roots,
                                    const std::vector<double>& node_cost_ms,
                                    const std::vector<NodeIndex>& choice, CostModel& model) {
  if (!acyclic_choice_cost_ms(eg, node_cost_ms, roots, choice)) return std::nullopt;
  std::optional<Graph> g = build_graph(eg, seed_graph, roots, choice);
  if (!g) return std::nullopt;
  return graph_cost_ms(*g, model);
}

}  // namespace

Extraction polish_by_graph_cost(const EGraph& eg, const Graph& seed_graph, const std::vector<ClassId>& roots,
                                const std::vector<double>& node_cost_ms, const Extraction& start,
                                CostModel& model, std::chrono::steady_clock::time_point deadline,
                                PolishReport& report, int max_passes) {
  Extraction best = start;
  const std::optional<double> start_cost =
      built_cost_ms(eg, seed_graph, roots, node_cost_ms, start.choice, model);
  if (!start_cost) return start;
  best.cost_ms = *start_cost;
  for (int pass = 0; pass < max_passes; ++pass) {
    bool kept = false;
    for (ClassId c : reached_classes(eg, roots, best.choice)) {
      for (NodeIndex n : eg.eclass(c).nodes) {
        if (n == best.choice[c] || !eg.listed(n) || !children_chosen(eg, n, best.choice)) continue;
        if (std::chrono::steady_clock::now() >= deadline) {
          report.cut_short = true;
          return best;
        }
        // The trial in place, undone unless kept.
        const NodeIndex before = std::exchange(best.choice[c], n);
        const std::optional<double> cost =
            built_cost_ms(eg, seed_graph, roots, node_cost_ms, best.choice, model);
        report.trials += cost.has_value();
        // A relative margin, so that rounding alone never switches.
        if (cost && *cost < best.cost_ms * (1 - 1e-9)) {
          best.cost_ms = *cost;
          ++report.kept;
          kept = true;
        } else {
          best.choice[c] = before;
        }
      }
    }
    if (!kept) break;
  }
  return best;
}

}  // namespace superopt::egraph
