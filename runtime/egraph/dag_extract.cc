// Greedy DAG extraction: cost sets merged bottom up over a worklist (see dag_extract.h).
#include "runtime/egraph/dag_extract.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <utility>

namespace superopt::egraph {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The classes a choice needs and the cost of each class's chosen e-node,
// sorted by class.
using CostSet = std::vector<std::pair<ClassId, double>>;

CostSet merged(const CostSet& a, const CostSet& b) {
  CostSet out;
  out.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) {
      out.push_back(a[i++]);
    } else if (i == a.size() || b[j].first < a[i].first) {
      out.push_back(b[j++]);
    } else {  // the same class: one chosen e-node, counted once
      out.push_back(a[i++]);
      ++j;
    }
  }
  return out;
}

bool holds(const CostSet& s, ClassId c) {
  auto it = std::lower_bound(s.begin(), s.end(), std::make_pair(c, -kInf));
  return it != s.end() && it->first == c;
}

double total(const CostSet& s) {
  double sum = 0;
  for (const auto& entry : s) sum += entry.second;
  return sum;
}

}  // namespace

Extraction dag_greedy_extract(const EGraph& eg, const std::vector<double>& cost_ms,
                              const std::vector<ClassId>& roots, int64_t max_set_entries) {
  const int num = eg.num_nodes();
  std::vector<CostSet> best(size_t(num) + 1);  // by ClassId
  std::vector<double> best_total(size_t(num) + 1, kInf);
  Extraction x;
  x.choice.assign(size_t(num) + 1, -1);
  // Every e-node a class lists (after rebuild), first those without children.
  std::deque<NodeIndex> work;
  std::vector<char> queued(size_t(num), 0);
  for (ClassId c : eg.class_ids())
    for (NodeIndex n : eg.eclass(c).nodes)
      if (eg.node(n).children.empty()) work.push_back(n), queued[n] = 1;
  int64_t entries = 0;
  while (!work.empty() && entries < max_set_entries) {
    const NodeIndex n = work.front();
    work.pop_front();
    queued[n] = 0;
    const ClassId c = eg.class_of(n);
    CostSet set;
    bool ready = true;
    for (ClassId child : eg.node(n).children) {
      const ClassId k = eg.find(child);
      if (best_total[k] == kInf) ready = false;
      if (!ready) break;
      set = merged(set, best[k]);
    }
    if (!ready || cost_ms[n] == kInf || holds(set, c)) continue;
    set.insert(std::lower_bound(set.begin(), set.end(), std::make_pair(c, -kInf)), {c, cost_ms[n]});
    entries += int64_t(set.size());
    const double t = total(set);
    // Ties go to the smaller set, so that zero-cost detours are never taken.
    if (t > best_total[c] || (t == best_total[c] && set.size() >= best[c].size())) continue;
    best_total[c] = t;
    best[c] = std::move(set);
    x.choice[c] = n;
    for (NodeIndex p : eg.eclass(c).parents) {
      if (eg.listed(p) && !queued[p]) work.push_back(p), queued[p] = 1;
    }
  }
  x.cost_ms = choice_cost_ms(eg, cost_ms, roots, x.choice);
  return x;
}

}  // namespace superopt::egraph
