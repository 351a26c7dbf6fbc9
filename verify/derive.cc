// Bounded bidirectional search for derivations (see derive.h).
#include "verify/derive.h"

#include <algorithm>
#include <unordered_map>

#include "runtime/core/graph_hash.h"
#include "runtime/rewrite/derivation.h"
#include "runtime/rewrite/rule_index.h"

namespace superopt::verify {
namespace {

// A graph reached from one side of the rule, with the steps that reached it.
struct Reached {
  Graph graph;
  Derivation steps;
  uint64_t outputs;  // outputs_hash(graph)
};

// Graphs reached from one side, level by level, de-duplicated by structure.
class Frontier {
 public:
  Frontier(const Graph& start, bool on_target) : on_target_(on_target) { add(start, {}); }

  const std::vector<Reached>& all() const { return reached_; }

  // Every graph one rewrite away from the last level; false when the bound
  // on graphs stopped it.
  bool expand(const RuleIndex& rules, int first_n, int max_ops, int max_graphs) {
    const size_t begin = level_begin_, end = reached_.size();
    level_begin_ = end;
    for (size_t i = begin; i < end; ++i) {
      const Graph g = reached_[i].graph;  // copied: add() may move reached_
      const Derivation steps = reached_[i].steps;
      bool full = false;
      for_each_occurrence(
          g, rules,
          [&](const DirectedRule& d, const Match& m) {
            if (full) return;
            std::optional<Graph> next = apply_rule(g, m, d);
            if (!next || next->num_operators() > max_ops) return;
            Derivation path = steps;
            path.push_back({d.rule, d.reversed, on_target_, {}, {}});
            record_site(m, path.back());
            add(std::move(*next), std::move(path));
            full = int(reached_.size()) >= max_graphs;
          },
          first_n);
      if (full) return false;
    }
    return true;
  }

  // The graph of this frontier with the fewest steps that computes what g
  // computes at its outputs (same_outputs: sharing aside), if any.
  const Reached* meeting(const Graph& g, uint64_t outputs_hash) const {
    const Reached* best = nullptr;
    auto [lo, hi] = by_outputs_.equal_range(outputs_hash);
    for (auto it = lo; it != hi; ++it) {
      const Reached& r = reached_[it->second];
      if ((!best || r.steps.size() < best->steps.size()) && same_outputs(r.graph, g)) best = &r;
    }
    return best;
  }

 private:
  // Graphs are told apart with their sharing (structurally_equal): a graph
  // that makes a computation twice can match a rule that reads it twice
  // (the matcher binds pattern operators to distinct nodes), its shared twin
  // cannot.
  void add(Graph graph, Derivation steps) {
    const GraphHashes h = graph_hashes(graph);
    auto [lo, hi] = by_hash_.equal_range(h.canonical);
    for (auto it = lo; it != hi; ++it)
      if (structurally_equal(reached_[it->second].graph, graph)) return;
    by_hash_.emplace(h.canonical, reached_.size());
    by_outputs_.emplace(h.outputs, reached_.size());
    reached_.push_back({std::move(graph), std::move(steps), h.outputs});
  }

  bool on_target_;
  std::vector<Reached> reached_;
  std::unordered_multimap<uint64_t, size_t> by_hash_, by_outputs_;
  size_t level_begin_ = 0;
};

// Source-side steps then target-side steps to graphs computing the same
// outputs, if any. Sides meet with their sharing aside: a rewrite builds its
// target anew beside an equal computation the graph already has, and the rule
// sides are shared where they can be (the generator never makes one
// computation twice): rule 18 of taso-3.h5 meets only so (verify/README.md).
std::optional<Derivation> meet(const Frontier& source, const Frontier& target) {
  std::optional<Derivation> best;
  for (const Reached& t : target.all()) {
    const Reached* s = source.meeting(t.graph, t.outputs);
    if (!s || (best && best->size() <= s->steps.size() + t.steps.size())) continue;
    Derivation d = s->steps;
    d.insert(d.end(), t.steps.begin(), t.steps.end());
    best = std::move(d);
  }
  return best;
}

}  // namespace

std::optional<Derivation> find_derivation(const Rule& rule, const RuleIndex& proven, const DeriveOptions& o,
                                          int first_n) {
  const int max_ops = std::max(rule.source.num_operators(), rule.target.num_operators()) + o.max_extra_ops;
  Frontier source(rule.source, false), target(rule.target, true);
  int steps = 0;
  for (bool grow_source = true; steps < o.max_steps; grow_source = !grow_source, ++steps) {
    Frontier& side = grow_source ? source : target;
    side.expand(proven, first_n, max_ops, o.max_graphs);
    if (std::optional<Derivation> d = meet(source, target)) return d;
  }
  return std::nullopt;
}

std::optional<Derivation> find_meeting(const Rule& rule, const RuleIndex& rules, const MeetingBounds& b) {
  Frontier source(rule.source, false), target(rule.target, true);
  if (std::optional<Derivation> d = meet(source, target)) return d;
  for (int level = 0; level < b.source_levels + b.target_levels; ++level) {
    Frontier& side = level < b.source_levels ? source : target;
    side.expand(rules, -1, b.max_ops, b.max_graphs);
    if (std::optional<Derivation> d = meet(source, target)) return d;
  }
  return std::nullopt;
}

void ProvenRules::add(const Rule& rule, int k) {
  add_compiled(k, rule.fingerprint, compile_rule(rule, k), ClassPaths::keys(rule));
}

void ProvenRules::add_compiled(int k, uint64_t fingerprint, std::vector<DirectedRule> directions,
                               ClassPaths::Keys keys) {
  const int first = int(index.rules.size());
  if (k >= int(first_position.size())) {
    first_position.resize(size_t(k) + 1, -1);
    class_keys.resize(size_t(k) + 1);
  }
  first_position[k] = first;
  class_keys[k] = keys;
  for (DirectedRule& d : directions) index.add(std::move(d));
  classes.add(fingerprint, keys, index, first);
}

std::optional<FoundDerivation> derive_rule(const Rule& rule, const ProvenRules& proven,
                                           const DeriveOptions& o, int first_n) {
  if (std::optional<Derivation> d =
          proven.classes.find(rule, proven.index, o.max_class_path, o.max_graphs, first_n))
    return FoundDerivation{std::move(*d), kClassPathNote};
  if (std::optional<Derivation> d = find_derivation(rule, proven.index, o, first_n))
    return FoundDerivation{std::move(*d)};
  if (std::optional<Derivation> d = derive_by_parts(rule, proven, o, first_n))
    return FoundDerivation{std::move(*d), kPartsNote};
  // Output by output last, by measurement (`derive COPY --json`, one process,
  // user CPU s, load 2-3): tried before the whole-rule search instead, the same
  // minimal sets (taso-3.h5 with its derivations dropped: 734; the 4-operator
  // 10 % sample: 5,129) at 11.60 s against 11.45 s and 6.32 s against 5.88 s,
  // and fewer derivations that replay on the whole graph. It makes
  // derive_by_parts redundant there (without it: the same 734 and 5,129, the
  // 13 part-by-part rules of the sample derived output by output instead).
  if (std::optional<Derivation> d = derive_by_outputs(rule, proven, o, first_n))
    return FoundDerivation{std::move(*d), kPerOutputNote};
  return std::nullopt;
}

}  // namespace superopt::verify
