// split_and_search(): search the parts of a split graph one by one, stitch
// them, then search convex windows around the seams between parts.
#include <algorithm>
#include <chrono>
#include <deque>
#include <optional>
#include <unordered_set>

#include "runtime/core/error.h"
#include "search/graph_split.h"
#include "search/part_search.h"
#include "search/stitch.h"

namespace superopt::search {
namespace {

// The deadline for the next of `remaining` searches: an equal share of what is left.
Clock::time_point share(Clock::time_point deadline, size_t remaining) {
  if (deadline == Clock::time_point::max()) return deadline;
  auto now = Clock::now();
  if (deadline <= now) return now;
  return now + (deadline - now) / std::max<size_t>(remaining, 1);
}

struct PartsOutcome {
  std::vector<std::vector<NodeId>> nodes;  // the node sets that could be cut out
  std::vector<Part> parts;                 // each optimized (or as it was)
  std::vector<std::vector<Trace>> traces;  // the applications that optimized each
  bool finished = true;                    // every search ran its queue empty
  bool memory_full = false;                // some search stopped at max_held_bytes
  int64_t held_bytes = 0;                  // the most one search held
};

// Extracts and searches each node set; sets that cannot stand alone stay as they
// are. The sets share `budget` and the time to the deadline; what one leaves
// goes to the next.
PartsOutcome search_parts(const Graph& g, const std::vector<std::vector<NodeId>>& sets,
                          const RuleIndex& rules, CostModel& cost, const SearchLimits& limits, int64_t budget,
                          int64_t& explored) {
  PartsOutcome out;
  for (size_t i = 0; i < sets.size(); ++i) {
    if (limits.deadline.passed()) {  // the rest stay as they are
      out.finished = false;
      break;
    }
    Part part;
    try {
      part = extract_part(g, sets[i]);
    } catch (const Error&) {
      continue;
    }
    SearchLimits part_limits = limits;
    part_limits.deadline.at = share(limits.deadline.at, sets.size() - i);
    part_limits.budget = std::max<int64_t>(1, budget / int64_t(sets.size() - i));
    SearchOutcome found = backtracking_search(part.graph, rules, cost, part_limits);
    explored += found.explored;
    budget -= found.explored;
    out.finished &= found.finished;
    out.memory_full |= found.memory_full;
    out.held_bytes = std::max(out.held_bytes, found.held_bytes);
    if (found.best_cost_ms < found.start_cost_ms) {
      part.graph = std::move(found.best);
      out.traces.push_back(std::move(found.traces));
    } else {
      out.traces.emplace_back();
    }
    out.nodes.push_back(sets[i]);
    out.parts.push_back(std::move(part));
  }
  return out;
}

// Who reads each node, and each node's place in a topological order.
struct GraphOrder {
  std::vector<std::vector<NodeId>> consumers;
  std::vector<int> position;
};

GraphOrder graph_order(const Graph& g) {
  GraphOrder o{std::vector<std::vector<NodeId>>(g.num_nodes()), std::vector<int>(g.num_nodes(), 0)};
  for (NodeId id = 0; id < g.num_nodes(); ++id)
    for (TensorRef t : g.node(id).inputs()) o.consumers[t.node].push_back(id);
  std::optional<std::vector<NodeId>> order = g.topological_order();
  if (!order) throw Error("graph split: the stitched graph has a cycle");
  for (size_t i = 0; i < order->size(); ++i) o.position[(*order)[i]] = int(i);
  return o;
}

// Adds every node on a path between two nodes of the window, so that the
// window can be replaced as a whole without creating a cycle. Such a node lies
// between them in topological order: the walks stay in that range, so the
// cost follows the window, not the graph (it was quadratic on long chains).
void make_convex(const Graph& g, const GraphOrder& order, std::vector<char>& in_window,
                 std::vector<NodeId>& window) {
  int lo = order.position[window[0]], hi = lo;
  for (NodeId id : window) lo = std::min(lo, order.position[id]), hi = std::max(hi, order.position[id]);
  auto reach = [&](bool forward) {
    std::unordered_set<NodeId> seen;
    std::vector<NodeId> stack(window.begin(), window.end());
    while (!stack.empty()) {
      NodeId id = stack.back();
      stack.pop_back();
      auto visit = [&](NodeId m) {
        if (in_window[m] || order.position[m] < lo || order.position[m] > hi) return;
        if (seen.insert(m).second) stack.push_back(m);
      };
      if (forward)
        for (NodeId m : order.consumers[id]) visit(m);
      else
        for (TensorRef t : g.node(id).inputs()) visit(t.node);
    }
    return seen;
  };
  std::unordered_set<NodeId> below = reach(true), above = reach(false);
  for (NodeId id : below)
    if (above.count(id)) {
      in_window[id] = 1;
      window.push_back(id);
    }
}

// Disjoint convex windows of operators within two steps of an edge between parts.
std::vector<std::vector<NodeId>> seam_windows(const Graph& g, const std::vector<int>& origin, int threshold,
                                              Clock::time_point deadline) {
  int n = g.num_nodes();
  std::vector<std::vector<NodeId>> neighbours(n);
  for (NodeId id = 0; id < n; ++id)
    for (TensorRef t : g.node(id).inputs())
      if (is_operator(g.node(id).op) && is_operator(g.node(t.node).op)) {
        neighbours[id].push_back(t.node);
        neighbours[t.node].push_back(id);
      }
  const GraphOrder order = graph_order(g);
  std::vector<char> taken(n, 0), in_window(n, 0);
  std::vector<std::vector<NodeId>> windows;
  for (NodeId v = 0; v < n && Clock::now() < deadline; ++v)
    for (NodeId u : neighbours[v]) {
      if (u > v || origin[u] == origin[v] || taken[u] || taken[v]) continue;
      std::vector<NodeId> window;
      std::deque<std::pair<NodeId, int>> queue{{u, 0}, {v, 0}};
      while (!queue.empty() && int(window.size()) < threshold) {
        auto [id, depth] = queue.front();
        queue.pop_front();
        if (in_window[id] || taken[id]) continue;
        in_window[id] = 1;
        window.push_back(id);
        if (depth < 2)
          for (NodeId m : neighbours[id]) queue.push_back({m, depth + 1});
      }
      make_convex(g, order, in_window, window);
      bool clash = false;
      for (NodeId id : window) {
        in_window[id] = 0;
        clash |= bool(taken[id]) || !is_operator(g.node(id).op);
      }
      if (clash || int(window.size()) > 2 * threshold) continue;
      std::sort(window.begin(), window.end());
      for (NodeId id : window) taken[id] = 1;
      windows.push_back(std::move(window));
    }
  return windows;
}

// The alternatives of a split search are whole graphs: the polish pass's,
// after the parts' and seams' applications (`prefix`), and the stitched graph
// it started from when it moved away from it.
std::vector<Alternative> whole_graph_alternatives(const std::vector<Trace>& prefix, const Graph& stitched,
                                                  const SearchOutcome& polish) {
  std::vector<Alternative> out;
  for (const Alternative& a : polish.alternatives) {
    Alternative whole{a.graph, a.cost_ms, prefix};
    whole.traces.insert(whole.traces.end(), a.traces.begin(), a.traces.end());
    out.push_back(std::move(whole));
  }
  bool moved = false;
  for (const Trace& t : polish.traces) moved |= !t.steps.empty();
  if (moved && !prefix.empty())
    out.push_back({std::make_shared<const Graph>(stitched), polish.start_cost_ms, prefix});
  return out;
}

}  // namespace

SplitOutcome split_and_search(const Graph& g, const RuleIndex& rules, CostModel& cost,
                              const SearchLimits& limits, int threshold) {
  SplitOutcome out;
  if (threshold <= 0 || g.num_operators() <= threshold) {
    out.search = backtracking_search(g, rules, cost, limits);
    return out;
  }
  out.search.start_cost_ms = graph_cost_ms(g, cost);
  const Clock::time_point split_start = Clock::now();
  std::vector<std::vector<NodeId>> sets = split_graph(g, occurrence_capacity(g, rules), threshold);
  out.split_seconds = std::chrono::duration<double>(Clock::now() - split_start).count();
  out.parts = int(sets.size());
  // The parts share most of the budget and time, then the seams, then a last
  // greedy pass over the whole graph.
  auto until = [&](int percent) {
    SearchLimits l = limits;
    if (limits.deadline.at != Clock::time_point::max())
      l.deadline.at = Clock::now() + (limits.deadline.at - Clock::now()) * percent / 100;
    return l;
  };
  PartsOutcome first =
      search_parts(g, sets, rules, cost, until(70), limits.budget * 70 / 100, out.search.explored);
  Stitched stitched = stitch(g, first.nodes, first.parts);  // the split orders parts: no cycle

  std::vector<std::vector<NodeId>> windows =
      seam_windows(stitched.graph, stitched.origin, threshold, until(50).deadline.at);
  out.seams_searched = int(windows.size());
  PartsOutcome second = search_parts(stitched.graph, windows, rules, cost, until(50),
                                     limits.budget * 85 / 100 - out.search.explored, out.search.explored);
  Graph result = stitched.graph;
  // Windows are convex one by one; together they may still depend on each other in a cycle.
  while (!second.parts.empty()) {
    try {
      result = stitch(stitched.graph, second.nodes, second.parts).graph;
      break;
    } catch (const Error&) {
      second.nodes.pop_back();
      second.parts.pop_back();
      second.traces.pop_back();
    }
  }
  for (const PartsOutcome* done : {&first, &second})
    for (const std::vector<Trace>& t : done->traces)
      out.search.traces.insert(out.search.traces.end(), t.begin(), t.end());
  result.remove_unused();
  // Improvements spanning parts beyond the seam windows (matmuls in different
  // parts that read one model input, say): greedy over the whole graph, which
  // costs little since almost every application is pruned before it is built.
  SearchLimits polish_limits = limits;
  polish_limits.alpha = 1.0;
  polish_limits.budget = std::max<int64_t>(1, limits.budget - out.search.explored);
  SearchOutcome polish;
  if (!limits.deadline.passed()) {
    polish = backtracking_search(result, rules, cost, polish_limits);
  } else {  // no time left: the stitched graph as it is
    polish.best_cost_ms = graph_cost_ms(result, cost);
    polish.best = std::move(result);
    polish.finished = false;
  }
  out.search.explored += polish.explored;
  out.search.alternatives = whole_graph_alternatives(out.search.traces, result, polish);
  out.search.traces.insert(out.search.traces.end(), polish.traces.begin(), polish.traces.end());
  out.search.best_cost_ms = polish.best_cost_ms;
  out.search.finished = first.finished && second.finished && polish.finished;
  out.search.memory_full = first.memory_full || second.memory_full || polish.memory_full;
  out.search.held_bytes = std::max({first.held_bytes, second.held_bytes, polish.held_bytes});
  out.search.best = std::move(polish.best);
  if (!(out.search.best_cost_ms <= out.search.start_cost_ms)) {
    out.search.best = g;
    out.search.best_cost_ms = out.search.start_cost_ms;
    out.search.traces.clear();
  }
  return out;
}

}  // namespace superopt::search
