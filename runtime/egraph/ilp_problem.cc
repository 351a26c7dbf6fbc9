// The exact reductions of the extraction problem (see ilp_problem.h).
#include "runtime/egraph/ilp_problem.h"

#include <algorithm>
#include <cmath>

#include "runtime/egraph/acyclic_filter.h"

namespace superopt::egraph {
namespace {

std::vector<ClassId> distinct_children(const EGraph& eg, NodeIndex n) {
  std::vector<ClassId> ch;
  for (ClassId c : eg.node(n).children) ch.push_back(eg.find(c));
  std::sort(ch.begin(), ch.end());
  ch.erase(std::unique(ch.begin(), ch.end()), ch.end());
  return ch;
}

// The classes reachable from the roots through any e-node, in the order found.
std::vector<ClassId> reachable(const EGraph& eg, const std::vector<ClassId>& roots) {
  std::vector<char> seen(size_t(eg.num_nodes()) + 1, 0);
  std::vector<ClassId> order, stack;
  for (ClassId r : roots) stack.push_back(eg.find(r));
  while (!stack.empty()) {
    const ClassId c = stack.back();
    stack.pop_back();
    if (seen[c]) continue;
    seen[c] = 1;
    order.push_back(c);
    for (NodeIndex n : eg.eclass(c).nodes)
      for (ClassId child : eg.node(n).children) stack.push_back(eg.find(child));
  }
  return order;
}

// An e-node for each weight-only class computing it from weights alone, found
// bottom up (each one's children resolved before it), so the choice is acyclic.
// The e-graph's own fixpoint (EGraph::rebuild) uses the same test.
void resolve_constants(const EGraph& eg, const std::vector<double>& cost_ms,
                       const std::vector<ClassId>& classes, std::vector<NodeIndex>& constant) {
  for (bool changed = true; changed;) {
    changed = false;
    for (ClassId c : classes) {
      if (constant[c] >= 0 || !eg.eclass(c).weight_only) continue;
      for (NodeIndex n : eg.eclass(c).nodes) {
        const ENode& e = eg.node(n);
        if ((!e.is_projection() && e.op == OpType::input) || !std::isfinite(cost_ms[n]) || cost_ms[n] != 0)
          continue;
        bool ready = true;
        for (ClassId h : e.children) ready = ready && constant[eg.find(h)] >= 0;
        if (!ready) continue;
        constant[c] = n;
        changed = true;
        break;
      }
    }
  }
}

// A choice carried to the e-nodes left (see carry_choice); `left(c, n)` says
// whether e-node n of class c is left.
template <class Left>
std::vector<NodeIndex> carry(const EGraph& eg, const std::vector<NodeIndex>& constant,
                             const std::vector<NodeIndex>& dominated_by, const std::vector<ClassId>& roots,
                             const std::vector<NodeIndex>& choice, Left&& left) {
  std::vector<NodeIndex> out(constant.size(), -1);
  auto pick = [&](ClassId c) -> NodeIndex {
    if (constant[c] >= 0) return constant[c];
    if (size_t(c) >= choice.size() || choice[c] < 0) return -1;
    NodeIndex n = choice[c];
    while (dominated_by[n] >= 0) n = dominated_by[n];
    return left(c, n) ? n : -1;
  };
  // Depth first with colours: grey on the path, so that a cycle is seen.
  std::vector<char> colour(out.size(), 0);
  struct Frame {
    ClassId c;
    size_t next;
  };
  for (ClassId r : roots) {
    const ClassId root = eg.find(r);
    if (colour[root]) continue;
    const NodeIndex n = pick(root);
    if (n < 0) return {};
    out[root] = n, colour[root] = 1;
    std::vector<Frame> frames{{root, 0}};
    while (!frames.empty()) {
      Frame& f = frames.back();
      const ENode& e = eg.node(out[f.c]);
      if (f.next == e.children.size()) {
        colour[f.c] = 2;
        frames.pop_back();
        continue;
      }
      const ClassId h = eg.find(e.children[f.next++]);
      if (colour[h] == 1) return {};  // a cycle
      if (colour[h] == 2) continue;
      const NodeIndex k = pick(h);
      if (k < 0) return {};
      out[h] = k, colour[h] = 1;
      frames.push_back({h, 0});
    }
  }
  return out;
}

}  // namespace

IlpProblem reduce_extraction(const EGraph& eg, const std::vector<double>& cost_ms,
                             const std::vector<ClassId>& roots, const std::vector<NodeIndex>& keep_first,
                             bool filter) {
  IlpProblem p;
  const size_t num_ids = size_t(eg.num_nodes()) + 1;
  const std::vector<ClassId> all = reachable(eg, roots);
  p.reachable_classes = int(all.size());
  for (ClassId c : all) p.reachable_nodes += int(eg.eclass(c).nodes.size());
  p.constant.assign(num_ids, -1);
  p.dominated_by.assign(size_t(eg.num_nodes()), -1);
  p.children.assign(size_t(eg.num_nodes()), {});
  resolve_constants(eg, cost_ms, all, p.constant);

  // Per class: the usable e-nodes, then those not dominated.
  std::vector<std::vector<NodeIndex>> candidates(num_ids);
  for (ClassId c : all) {
    if (p.constant[c] >= 0) {
      ++p.constant_classes;
      continue;
    }
    std::vector<NodeIndex> usable;
    for (NodeIndex n : eg.eclass(c).nodes) {
      if (!std::isfinite(cost_ms[n])) continue;
      std::vector<ClassId> ch = distinct_children(eg, n);
      if (std::binary_search(ch.begin(), ch.end(), c)) {
        ++p.self_loops;
        continue;
      }
      ch.erase(std::remove_if(ch.begin(), ch.end(), [&](ClassId h) { return p.constant[h] >= 0; }), ch.end());
      p.children[n] = std::move(ch);
      usable.push_back(n);
    }
    // Cheapest first, then fewest children, then oldest: a dominating e-node
    // comes before every e-node it dominates, and of two equal ones the first stays.
    std::stable_sort(usable.begin(), usable.end(), [&](NodeIndex a, NodeIndex b) {
      if (cost_ms[a] != cost_ms[b]) return cost_ms[a] < cost_ms[b];
      return p.children[a].size() < p.children[b].size();
    });
    std::vector<NodeIndex>& kept = candidates[c];
    for (NodeIndex n : usable) {
      NodeIndex by = -1;
      for (NodeIndex k : kept)
        if (std::includes(p.children[n].begin(), p.children[n].end(), p.children[k].begin(),
                          p.children[k].end())) {
          by = k;
          break;
        }
      if (by >= 0) {
        p.dominated_by[n] = by, ++p.dominated;
        p.children[n].clear();
      } else {
        kept.push_back(n);
      }
    }
    std::sort(kept.begin(), kept.end());
  }

  if (filter) {
    // The warm start's e-nodes first (acyclic, so all kept), then every other
    // in the order added, as Tensat filters while saturating.
    const std::vector<NodeIndex> first =
        carry(eg, p.constant, p.dominated_by, roots, keep_first, [&](ClassId c, NodeIndex n) {
          return std::binary_search(candidates[c].begin(), candidates[c].end(), n);
        });
    std::vector<FilterItem> order;
    std::vector<char> placed(p.dominated_by.size(), 0);
    for (ClassId c = 0; c < ClassId(first.size()); ++c)
      if (first[c] >= 0 && p.constant[c] < 0) order.push_back({c, first[c]}), placed[first[c]] = 1;
    const size_t warm = order.size();
    for (ClassId c : all)
      for (NodeIndex n : candidates[c])
        if (!placed[n]) order.push_back({c, n});
    std::sort(order.begin() + long(warm), order.end(),
              [](const FilterItem& a, const FilterItem& b) { return a.node < b.node; });
    const std::vector<char> keep = filter_cycles(order, p.children, num_ids);
    for (ClassId c : all) candidates[c].clear();
    for (size_t i = 0; i < order.size(); ++i) {
      if (keep[i])
        candidates[order[i].cls].push_back(order[i].node);
      else
        ++p.cycle_filtered;
    }
    for (ClassId c : all) std::sort(candidates[c].begin(), candidates[c].end());
  }

  // E-nodes reading a class with nothing left go, until none does.
  for (bool changed = true; changed;) {
    changed = false;
    for (ClassId c : all) {
      std::vector<NodeIndex>& kept = candidates[c];
      const size_t before = kept.size();
      kept.erase(std::remove_if(kept.begin(), kept.end(),
                                [&](NodeIndex n) {
                                  for (ClassId h : p.children[n])
                                    if (candidates[h].empty()) return true;
                                  return false;
                                }),
                 kept.end());
      if (kept.size() != before) {
        p.unbuildable += int(before - kept.size());
        changed = true;
      }
    }
  }

  // What the roots still reach, through the e-nodes left.
  p.index.assign(num_ids, -1);
  std::vector<ClassId> stack;
  for (ClassId r : roots) {
    const ClassId c = eg.find(r);
    if (p.constant[c] < 0 && candidates[c].empty()) p.feasible = false;
    stack.push_back(c);
  }
  while (!stack.empty()) {
    const ClassId c = stack.back();
    stack.pop_back();
    if (p.constant[c] >= 0 || p.index[c] >= 0) continue;
    p.index[c] = int(p.classes.size());
    p.classes.push_back(c);
    p.nodes.push_back(candidates[c]);
    p.nodes_left += int(candidates[c].size());
    for (NodeIndex n : candidates[c])
      for (ClassId h : p.children[n]) stack.push_back(h);
  }
  return p;
}

std::vector<NodeIndex> carry_choice(const EGraph& eg, const IlpProblem& p, const std::vector<ClassId>& roots,
                                    const std::vector<NodeIndex>& choice) {
  return carry(eg, p.constant, p.dominated_by, roots, choice, [&](ClassId c, NodeIndex n) {
    if (p.index[c] < 0) return false;
    const std::vector<NodeIndex>& left = p.nodes[size_t(p.index[c])];
    return std::binary_search(left.begin(), left.end(), n);
  });
}

}  // namespace superopt::egraph
