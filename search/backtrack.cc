// The cost-ordered queue, pruning and de-duplication of the backtracking search.
#include "search/backtrack.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "runtime/core/graph_analysis.h"
#include "runtime/core/graph_hash.h"
#include "runtime/cost/cost_spread.h"
#include "search/graph_bytes.h"
#include "search/preprocessed_hash.h"
#include "search/window_cost.h"

namespace superopt::search {

std::vector<int> applied_rules(const std::vector<Trace>& traces) {
  std::vector<int> rules;
  for (const Trace& t : traces)
    for (const Step& s : t.steps) rules.push_back(s.rule);
  return rules;
}

Trace unwind(std::shared_ptr<const Graph> start, const std::shared_ptr<const StepHistory>& h) {
  Trace trace{std::move(start), {}};
  for (const StepHistory* p = h.get(); p; p = p->parent.get()) trace.steps.push_back(p->step);
  std::reverse(trace.steps.begin(), trace.steps.end());
  return trace;
}

namespace {

struct Candidate {
  std::shared_ptr<const Graph> graph;
  double cost_ms;
  std::shared_ptr<const StepHistory> history;
};

// Graphs that entered the queue, by canonical hash; collisions are compared exactly.
class SeenGraphs {
 public:
  // False when an equal graph was seen before; otherwise remembers g.
  bool insert(uint64_t hash, const std::shared_ptr<const Graph>& g) {
    auto& bucket = seen_[hash];
    for (const auto& other : bucket)
      if (structurally_equal(*other, *g)) return false;
    bucket.push_back(g);
    return true;
  }
  bool contains(uint64_t hash, const Graph& g) const {
    auto it = seen_.find(hash);
    if (it == seen_.end()) return false;
    for (const auto& other : it->second)
      if (structurally_equal(*other, g)) return true;
    return false;
  }

 private:
  std::unordered_map<uint64_t, std::vector<std::shared_ptr<const Graph>>> seen_;
};

// The cost after an application, from the graph's cost, the matched operators'
// costs and the target's (with a model that costs graphs whole: the change on
// a window around it, window_cost.h): exact unless the rewrite changes which downstream
// operators are precomputed, so it only decides what to skip.
class CostEstimator {
 public:
  CostEstimator(const Graph& g, double cost_ms, CostModel& cost)
      : g_(g),
        cost_ms_(cost_ms),
        cost_(cost),
        weight_only_(weight_only_nodes(g)),
        node_ms_(g.num_nodes(), -1) {
    if (cost.costs_whole_graphs()) window_.emplace(g_, weight_only_, cost);
  }

  std::optional<double> operator()(const DirectedRule& rule, const Match& m) {
    // A model that costs fused groups and reorders: the operators' costs alone
    // would misjudge a rewrite that changes what fuses (window_cost.h).
    if (window_) {
      std::optional<double> delta = window_->delta_ms(rule, m);
      return delta ? std::optional<double>(cost_ms_ + *delta) : std::nullopt;
    }
    std::optional<Graph> target = build_target_alone(g_, m, rule, weight_only_);
    if (!target) return std::nullopt;
    const double added = graph_cost_ms(*target, cost_);
    double removed = 0;
    for (size_t i = 0; i < rule.source.nodes.size(); ++i) {
      NodeId id = m.nodes[i];
      if (rule.source.nodes[i].kind != PatternKind::op || weight_only_[id]) continue;
      if (node_ms_[id] < 0) node_ms_[id] = cost_.node_cost_ms(g_, id);
      removed += node_ms_[id];
    }
    return cost_ms_ - removed + added;
  }

 private:
  const Graph& g_;
  double cost_ms_;
  CostModel& cost_;
  std::vector<bool> weight_only_;
  std::vector<double> node_ms_;
  std::optional<WindowCost> window_;  // with a model that costs graphs whole
};

// The `limit` cheapest graphs that entered the queue, cheapest first.
class Cheapest {
 public:
  explicit Cheapest(size_t limit) : limit_(limit) {}
  void offer(const Candidate& c) {
    if (limit_ == 0 || (kept_.size() == limit_ && c.cost_ms >= kept_.back().cost_ms)) return;
    auto at = std::upper_bound(kept_.begin(), kept_.end(), c.cost_ms,
                               [](double cost, const Candidate& k) { return cost < k.cost_ms; });
    kept_.insert(at, c);
    if (kept_.size() > limit_) kept_.pop_back();
  }
  // Those that are not `best`, at most limit - 1, with their traces from `start`.
  std::vector<Alternative> others(const Candidate& best, const std::shared_ptr<const Graph>& start) const {
    std::vector<Alternative> out;
    for (const Candidate& c : kept_)
      if (c.graph != best.graph && out.size() + 1 < limit_)
        out.push_back({c.graph, c.cost_ms, {unwind(start, c.history)}});
    return out;
  }

 private:
  size_t limit_;
  std::vector<Candidate> kept_;
};

}  // namespace

SearchOutcome backtracking_search(const Graph& g, const RuleIndex& rules, CostModel& cost,
                                  const SearchLimits& limits) {
  auto start = std::make_shared<const Graph>(g);
  Candidate best{start, graph_cost_ms(g, cost), nullptr};
  SearchOutcome out = SearchOutcome::start_at(g, best.cost_ms);
  bool dropped = false;                    // a graph fell off the end of a full queue
  std::multimap<double, Candidate> queue;  // cheapest first
  SeenGraphs seen;
  seen.insert(canonical_hash(g), start);
  // What the graphs that entered the queue run after preprocessing: a graph
  // that runs like one of them (it differs only in load-time work, e.g. the
  // order of concatenated weights) costs the same and is skipped, so that no
  // budget goes to coming back, by other steps, to work already queued.
  std::unordered_set<uint64_t> seen_runtime{preprocessed_hash(g)};
  queue.emplace(best.cost_ms, best);
  // Alpha prunes against the cheapest cost seen, as MetaFlow does, also when a
  // measured model keeps a best that is cheaper only beyond the noise (which
  // the cheapest may not be): a best held back by the noise would otherwise
  // widen the search to everything under alpha times it.
  double cheapest_ms = best.cost_ms;
  std::optional<CostUnitCounts> best_units;  // the best graph's cost entries, counted once per best
  Cheapest cheapest(size_t(std::max(limits.alternatives, 0)) + 1);  // the best may be one of them
  // Every graph that entered the queue stays in `seen`: what the search holds.
  out.held_bytes = graph_copy_bytes(g);
  while (!queue.empty() && out.explored < limits.budget && !limits.deadline.passed() && !out.memory_full) {
    Candidate current = queue.begin()->second;
    queue.erase(queue.begin());
    ++out.explored;
    CostEstimator estimate(*current.graph, current.cost_ms, cost);
    for_each_occurrence(*current.graph, rules, [&](const DirectedRule& rule, const Match& m) {
      // Stopped from outside: the rest of this expansion is skipped too (its
      // result is dropped), so that a whole-graph expansion ends at once.
      if (out.memory_full || stop_requested(limits.deadline.stop)) return;
      // Most applications are pruned, or would fall off the end of a full queue:
      // cost them before copying the graph.
      if (std::optional<double> c = estimate(rule, m)) {
        if (!(*c < limits.alpha * cheapest_ms)) return;
        if (int(queue.size()) >= limits.max_queue && *c >= queue.rbegin()->first && *c >= cheapest_ms) {
          dropped = true;
          return;
        }
      }
      std::optional<Graph> next = apply_rule(*current.graph, m, rule);
      if (!next) return;
      const uint64_t runtime = preprocessed_hash(*next);
      if (seen_runtime.count(runtime))
        return;  // runs like a graph already queued (or only load-time work changed)
      uint64_t hash = canonical_hash(*next);
      if (seen.contains(hash, *next)) return;
      double c = graph_cost_ms(*next, cost);
      if (!(c < limits.alpha * cheapest_ms)) return;  // pruned graphs are not remembered: they stay pruned
      auto graph = std::make_shared<const Graph>(std::move(*next));
      seen.insert(hash, graph);
      seen_runtime.insert(runtime);
      out.held_bytes += graph_copy_bytes(*graph);
      out.memory_full = out.held_bytes >= limits.max_held_bytes;
      auto history = std::make_shared<const StepHistory>(
          StepHistory{Step{int(&rule - rules.rules.data()), graph}, current.history});
      Candidate cand{graph, c, history};
      cheapest_ms = std::min(cheapest_ms, c);
      // A measured model's costs are noisy: cheaper counts only beyond the noise.
      if (c < best.cost_ms && cost.measures() && !best_units)
        best_units = count_cost_units(*best.graph, cost);
      if (best_units ? cheaper_beyond_noise(c, *graph, best.cost_ms, *best_units, cost)
                     : cheaper_beyond_noise(c, *graph, best.cost_ms, *best.graph, cost)) {
        best = cand;
        best_units.reset();
      }
      cheapest.offer(cand);
      queue.emplace(c, cand);
      if (int(queue.size()) > limits.max_queue) {
        queue.erase(std::prev(queue.end()));
        dropped = true;
      }
    });
  }
  out.finished = queue.empty() && !dropped && !out.memory_full;
  out.best = *best.graph;
  out.best_cost_ms = best.cost_ms;
  out.traces.push_back(unwind(start, best.history));
  out.alternatives = cheapest.others(best, start);
  return out;
}

}  // namespace superopt::search
