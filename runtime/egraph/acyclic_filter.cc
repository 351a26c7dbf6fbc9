// Cycle filtering by a reachability search per e-node (see acyclic_filter.h).
#include "runtime/egraph/acyclic_filter.h"

#include <algorithm>

namespace superopt::egraph {

std::vector<char> filter_cycles(const std::vector<FilterItem>& order,
                                const std::vector<std::vector<ClassId>>& children, size_t num_ids) {
  std::vector<char> keep(order.size(), 0);
  std::vector<std::vector<ClassId>> edges(num_ids);  // class -> child classes of its kept e-nodes
  std::vector<int> stamp(num_ids, 0);
  int visit = 0;
  std::vector<ClassId> stack;
  // Whether `to` is reachable from `from` through the edges so far.
  auto reaches = [&](ClassId from, ClassId to) {
    ++visit;
    stack.assign(1, from);
    stamp[from] = visit;
    while (!stack.empty()) {
      const ClassId c = stack.back();
      stack.pop_back();
      if (c == to) return true;
      for (ClassId h : edges[c])
        if (stamp[h] != visit) stamp[h] = visit, stack.push_back(h);
    }
    return false;
  };
  for (size_t i = 0; i < order.size(); ++i) {
    const auto [c, n] = order[i];
    bool closes = false;
    for (ClassId h : children[n]) closes = closes || h == c || reaches(h, c);
    if (closes) continue;
    keep[i] = 1;
    for (ClassId h : children[n])
      if (std::find(edges[c].begin(), edges[c].end(), h) == edges[c].end()) edges[c].push_back(h);
  }
  return keep;
}

}  // namespace superopt::egraph
