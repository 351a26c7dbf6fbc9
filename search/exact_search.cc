// OCGGS's exact searches (Fang et al., VLDB 2020): brute-force enumeration of
// all sequences of length <= K (ENU), Pruning (Algorithm 1: a child
// substitution extends a sequence only when the last one precedes it,
// Corollary 1) and DP with pruning (Algorithm 2: a graph's substitutions are
// its father's that the last rewrite left alone plus those matched again near
// it, Theorem 6). One depth-first walk; they differ in what they extend with.
#include <memory>

#include "runtime/cost/cost_model.h"
#include "search/sequence_search.h"
#include "search/substitution_order.h"

namespace superopt::search {
namespace {

enum class Mode { enumeration, pruning, dpp };

class ExactSearch {
 public:
  ExactSearch(Mode mode, const RuleIndex& rules, CostModel& cost, const SequenceLimits& limits)
      : mode_(mode), rules_(rules), cost_(cost), limits_(limits), radius_(largest_source(rules) + 1) {}

  SearchOutcome run(const Graph& g) {
    auto start = std::make_shared<const Graph>(g);
    double c = graph_cost_ms(g, cost_);
    out_ = SearchOutcome::start_at(g, c);
    best_graph_ = start;
    Labels labels = initial_labels(g);
    if (limits_.max_length > 0) visit(start, labels, nullptr, all_substitutions(g, rules_, labels), 0);
    out_.finished = !stopped_;
    out_.best = *best_graph_;
    out_.traces.push_back(Trace{start, best_path_});
    return std::move(out_);
  }

 private:
  // Extends the sequence that reached g (its last substitution `last`) with
  // each of g's substitutions `subs` allowed, depth-first.
  void visit(const std::shared_ptr<const Graph>& g, const Labels& labels, const Substitution* last,
             const std::vector<Substitution>& subs, int depth) {
    if (out_.explored >= limits_.budget || limits_.deadline.passed()) {
      stopped_ = true;
      return;
    }
    ++out_.explored;
    std::vector<Substitution> allowed;  // Delta' of Algorithm 2: what the children reuse
    for (const Substitution& s : subs)
      if (mode_ == Mode::enumeration || !last || precedes(*last, s)) allowed.push_back(s);
    for (const Substitution& s : allowed) {
      std::optional<Graph> next = apply_rule(*g, s.match, rules_.rules[s.rule]);
      if (!next) continue;
      auto ng = std::make_shared<const Graph>(std::move(*next));
      double c = graph_cost_ms(*ng, cost_);
      if (limits_.examined) limits_.examined(*ng, depth + 1);
      path_.push_back(Step{s.rule, ng});
      if (c < out_.best_cost_ms) {
        out_.best_cost_ms = c;
        best_graph_ = ng;
        best_path_ = path_;
      }
      if (depth + 1 < limits_.max_length) {
        Rewritten rw = relabel(*g, labels, *ng, depth + 1);
        std::vector<Substitution> child = mode_ == Mode::dpp
                                              ? substitutions_after(*g, *ng, rw, allowed, rules_, radius_)
                                              : all_substitutions(*ng, rules_, rw.labels);
        visit(ng, rw.labels, &s, child, depth + 1);
      }
      path_.pop_back();
      if (stopped_) return;
    }
  }

  Mode mode_;
  const RuleIndex& rules_;
  CostModel& cost_;
  SequenceLimits limits_;
  int radius_;
  SearchOutcome out_;
  std::shared_ptr<const Graph> best_graph_;
  std::vector<Step> path_, best_path_;
  bool stopped_ = false;
};

}  // namespace

SearchOutcome enumeration_search(const Graph& g, const RuleIndex& rules, CostModel& cost,
                                 const SequenceLimits& limits) {
  return ExactSearch(Mode::enumeration, rules, cost, limits).run(g);
}

SearchOutcome pruning_search(const Graph& g, const RuleIndex& rules, CostModel& cost,
                             const SequenceLimits& limits) {
  return ExactSearch(Mode::pruning, rules, cost, limits).run(g);
}

SearchOutcome dpp_search(const Graph& g, const RuleIndex& rules, CostModel& cost,
                         const SequenceLimits& limits) {
  return ExactSearch(Mode::dpp, rules, cost, limits).run(g);
}

}  // namespace superopt::search
