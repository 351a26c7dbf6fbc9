// OCGGS's Sampling (Fang et al., VLDB 2020, section 5, Algorithm 3): at most Q
// sequences kept per length. A length's children are split into those not
// ending in a cost increase (the best Q/2 go on) and "further exploration"
// sequences (ending in at most eta successive increases), whose dependent
// descendants are followed, Q/2 at a time by potential (Definition 12), until
// the cost comes down; the best Q/2 of those go on too. A sequence's
// substitutions are found from its father's (the reuse of Algorithm 2).
#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <unordered_set>

#include "runtime/core/graph_hash.h"
#include "runtime/cost/cost_model.h"
#include "search/sequence_search.h"
#include "search/substitution_order.h"

namespace superopt::search {
namespace {

// One sampled sequence. Most are costed and dropped, so a sequence keeps only
// how to rebuild its graph (its father's graph and the substitution) until it
// is expanded or is the best: that bounds memory by the sequences kept.
struct Sequence {
  std::shared_ptr<const Graph> graph;  // null until materialized
  uint64_t hash = 0;                   // canonical hash of the graph
  double cost = 0;
  int length = 0;
  int increases = 0;  // successive cost-increasing substitutions at its end
  std::shared_ptr<const Labels> labels;
  std::shared_ptr<const StepHistory> history;
  // Its father's graph, labels, history and substitutions, and the last
  // substitution: the graph is rebuilt from these, the children found from
  // the father's substitutions and the rewrite between them (Theorem 5).
  std::shared_ptr<const Graph> father;
  std::shared_ptr<const Labels> father_labels;
  std::shared_ptr<const StepHistory> father_history;
  std::shared_ptr<const std::vector<Substitution>> father_subs;
  Substitution last;
  std::shared_ptr<const Rewritten> rewrite;
  double potential = 0;
  std::optional<std::vector<std::shared_ptr<Sequence>>> dependents;  // found once, by the look-ahead
};
using Sequences = std::vector<std::shared_ptr<Sequence>>;

class Sampler {
 public:
  Sampler(const RuleIndex& rules, CostModel& cost, const SequenceLimits& limits)
      : rules_(rules), cost_(cost), limits_(limits), radius_(largest_source(rules) + 1) {}

  SearchOutcome run(const Graph& g) {
    start_ = std::make_shared<const Graph>(g);
    auto root = std::make_shared<Sequence>();
    root->graph = start_;
    root->cost = graph_cost_ms(g, cost_);
    root->labels = std::make_shared<const Labels>(initial_labels(g));
    out_ = SearchOutcome::start_at(g, root->cost);
    best_ = root;
    Sequences level{root};  // P_{k-1}
    while (!level.empty() && !stopped_) level = next_level(level);
    out_.finished = !stopped_;
    out_.best = *best_->graph;
    out_.best_cost_ms = best_->cost;
    out_.traces.push_back(best_trace());
    return std::move(out_);
  }

 private:
  // Lines 4-14 of Algorithm 3: P_k from P_{k-1}.
  Sequences next_level(const Sequences& level) {
    Sequences tmp;  // line 4
    for (const auto& p : level) append(tmp, children(*p, false));
    Sequences des, inc, explore;  // lines 6-7
    for (auto& p : tmp) (further(*p) ? inc : des).push_back(p);
    explore = inc;
    while (!explore.empty() && !stopped_) {  // lines 8-12
      Sequences sampled = by_potential(explore);
      explore.clear();
      for (const auto& p : sampled) {
        append(explore, dependents(*p));
        p->dependents.reset();
      }
      inc.insert(inc.end(), explore.begin(), explore.end());
      std::erase_if(explore, [&](const auto& p) { return !further(*p); });
    }
    std::erase_if(inc, [](const auto& p) { return p->increases > 0; });  // line 13
    Sequences next = best_by_cost(des, half());                          // line 14
    std::unordered_set<uint64_t> taken;
    for (const auto& p : next) taken.insert(p->hash);
    for (const auto& p : best_by_cost(inc, half()))
      if (taken.insert(p->hash).second) next.push_back(p);
    std::erase_if(next, [&](const auto& p) { return p->length >= limits_.max_length; });
    out_.widest_level = std::max<int64_t>(out_.widest_level, int64_t(next.size()));
    return next;
  }

  int half() const { return std::max(1, limits_.sample_size / 2); }

  // A further exploration sequence: it ends with at most eta successive cost increases.
  bool further(const Sequence& p) const { return p.increases > 0 && p.increases <= limits_.eta; }

  static void append(Sequences& to, Sequences from) { to.insert(to.end(), from.begin(), from.end()); }

  // The best n by cost, without two reaching the same graph.
  static Sequences best_by_cost(Sequences s, int n) {
    std::stable_sort(s.begin(), s.end(), [](const auto& a, const auto& b) { return a->cost < b->cost; });
    Sequences out;
    std::unordered_set<uint64_t> seen;
    for (const auto& p : s) {
      if (int(out.size()) == n) break;
      if (seen.insert(p->hash).second) out.push_back(p);
    }
    return out;
  }

  // Line 9: Q/2 sequences with the best potentials. Definition 12's potential
  // (the best cost a chain of dependent substitutions reaches) is estimated one
  // step ahead: the best cost among the dependent children, which the caller
  // then extends from. Only the Q cheapest are looked ahead from, to keep the
  // polynomial bound.
  Sequences by_potential(const Sequences& candidates) {
    Sequences s = best_by_cost(candidates, 2 * half());
    if (int(s.size()) <= half()) return s;
    for (auto& p : s) {
      p->potential = std::numeric_limits<double>::infinity();
      for (const auto& c : dependents(*p)) p->potential = std::min(p->potential, c->cost);
    }
    std::stable_sort(s.begin(), s.end(),
                     [](const auto& a, const auto& b) { return a->potential < b->potential; });
    s.resize(size_t(half()));
    return s;
  }

  Sequences dependents(Sequence& p) {
    if (!p.dependents) p.dependents = children(p, true);
    return *p.dependents;
  }

  // p's child sequences no longer than K; only those whose last substitution
  // depends on p's last when `dependent` (Definition 12 (1)).
  Sequences children(Sequence& p, bool dependent) {
    Sequences out;
    if (p.length >= limits_.max_length) return out;
    if (out_.explored >= limits_.budget || limits_.deadline.passed()) {
      stopped_ = true;
      return out;
    }
    ++out_.explored;
    materialize(p);
    auto subs = std::make_shared<const std::vector<Substitution>>(
        p.father ? substitutions_after(*p.father, *p.graph, *p.rewrite, *p.father_subs, rules_, radius_)
                 : all_substitutions(*p.graph, rules_, *p.labels));
    for (const Substitution& s : *subs) {
      if (dependent && s.depends_on != p.length) continue;
      std::optional<Graph> next = apply_rule(*p.graph, s.match, rules_.rules[s.rule]);
      if (!next) continue;
      auto c = std::make_shared<Sequence>();
      c->cost = graph_cost_ms(*next, cost_);
      c->hash = canonical_hash(*next);
      c->length = p.length + 1;
      if (limits_.examined) limits_.examined(*next, c->length);
      c->increases = c->cost > p.cost ? p.increases + 1 : 0;
      c->father = p.graph;
      c->father_labels = p.labels;
      c->father_history = p.history;
      c->father_subs = subs;
      c->last = s;
      if (c->cost < best_->cost) {  // lines 5 and 11
        materialize(*c, std::move(*next));
        best_ = c;
      }
      out.push_back(std::move(c));
    }
    return out;
  }

  // Builds p's graph again (apply_rule is deterministic), its labels and history.
  void materialize(Sequence& p, std::optional<Graph> built = std::nullopt) {
    if (p.graph) return;
    if (!built) built = apply_rule(*p.father, p.last.match, rules_.rules[p.last.rule]);
    p.graph = std::make_shared<const Graph>(std::move(*built));
    auto rw = std::make_shared<const Rewritten>(relabel(*p.father, *p.father_labels, *p.graph, p.length));
    p.labels = std::make_shared<const Labels>(rw->labels);
    p.rewrite = rw;
    p.history =
        std::make_shared<const StepHistory>(StepHistory{Step{p.last.rule, p.graph}, p.father_history});
  }

  Trace best_trace() const { return search::unwind(start_, best_->history); }

  const RuleIndex& rules_;
  CostModel& cost_;
  SequenceLimits limits_;
  int radius_;
  SearchOutcome out_;
  std::shared_ptr<const Graph> start_;
  std::shared_ptr<Sequence> best_;
  bool stopped_ = false;
};

}  // namespace

SearchOutcome sampling_search(const Graph& g, const RuleIndex& rules, CostModel& cost,
                              const SequenceLimits& limits) {
  return Sampler(rules, cost, limits).run(g);
}

}  // namespace superopt::search
