// derive_rules() (see derive.h): the minimization run. Whether a rule derives
// depends only on the proven rules before it, so one index of every proven
// rule, built in derivation order and cut at each rule's place, lets the
// verifier pool share the rules out over the ranks.
#include <algorithm>
#include <chrono>
#include <numeric>
#include <optional>

#include "runtime/core/error.h"
#include "runtime/rewrite/derivation.h"
#include "verify/derive.h"
#include "verify/progress_line.h"
#include "verify/rule_validation.h"
#include "verify/verifier_pool.h"

namespace superopt::verify {

std::vector<int> derivation_sequence(const std::vector<Rule>& rules) {
  std::vector<int> order(rules.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return derivation_order(rules[a].num_operators(), a) < derivation_order(rules[b].num_operators(), b);
  });
  return order;
}

void share_results(const MpiWorld* world, std::vector<Rule>& rules, const std::vector<int>& done) {
  if (!world || world->size() == 1) return;
  std::string text;
  if (world->rank() == 0)
    for (int k : done)
      text += std::to_string(int(rules[k].status)) + " " + derivation_text(rules[k].derivation) + "\n";
  text = world->broadcast(text);
  size_t at = 0;
  for (int k : done) {
    const size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    const size_t space = line.find(' ');
    rules[k].status = static_cast<RuleStatus>(std::stoi(line.substr(0, space)));
    rules[k].derivation = derivation_from_text(line.substr(space + 1));
  }
}

namespace {

// The proven rules in derivation order, and for every rule how many of the
// index's entries come before it.
struct ProvenBefore {
  ProvenRules proven;
  std::vector<int> first_n;
};

// A pass's index. A rule that `last` (an earlier pass's index) held has its
// directions moved over, since a run only ever proves more; only the rules
// proven since are compiled from their graphs. With `keep`, every rule it does
// not mark has its graphs released once indexed: no later pass tries or
// compiles it (at 4 operators that is 1.6 GB of a worker's 3.4).
ProvenBefore proven_before(RuleDatabase& db, const std::vector<int>& order, ProvenBefore* last,
                           const std::vector<char>* keep) {
  const std::vector<Rule>& rules = db.rules;
  ProvenBefore p;
  p.first_n.resize(rules.size());
  // Both directions of every proven rule: reserved, so that growing the index
  // never holds it twice (at 4 operators it is the largest part of a rank).
  p.proven.index.rules.reserve(2 * size_t(std::count_if(rules.begin(), rules.end(),
                                                        [](const Rule& r) { return is_proven(r.status); })));
  std::vector<DirectedRule>* moved = last ? &last->proven.index.rules : nullptr;
  size_t next = 0;  // the first of `moved` not moved yet: entries follow `order` in both
  for (int k : order) {
    p.first_n[k] = int(p.proven.index.rules.size());
    const bool indexed =
        last && k < int(last->proven.first_position.size()) && last->proven.first_position[k] >= 0;
    if (indexed) {
      std::vector<DirectedRule> directions;
      for (; next < moved->size() && (*moved)[next].rule == k; ++next)
        directions.push_back(std::move((*moved)[next]));
      if (is_proven(rules[k].status))
        p.proven.add_compiled(k, rules[k].fingerprint, std::move(directions), last->proven.class_keys[k]);
    } else if (is_proven(rules[k].status)) {
      if (rules[k].graphs_released())
        throw Error("rule " + std::to_string(k) + " was proven after its graphs were released");
      p.proven.add(rules[k], k);
    }
    if (keep && !(*keep)[k]) db.release_graphs(size_t(k));
  }
  return p;
}

// The rules a pass tries: not refuted, not derived, and after `from` in
// derivation order (nothing before it changed since they were last tried).
std::vector<int> to_try(const std::vector<Rule>& rules, const std::vector<int>& order, size_t from) {
  std::vector<int> todo;
  for (size_t i = from; i < order.size(); ++i) {
    const RuleStatus s = rules[order[i]].status;
    if (s != RuleStatus::refuted && s != RuleStatus::derived) todo.push_back(order[i]);
  }
  return todo;
}

}  // namespace

DeriveSummary derive_rules(RuleDatabase& db, const DeriveOptions& options, const MpiWorld* world,
                           const std::function<void()>& recorded) {
  const auto start = std::chrono::steady_clock::now();
  DeriveSummary summary;
  summary.invalidated = invalidate_broken_derivations(db.rules);
  const std::vector<int> order = derivation_sequence(db.rules);
  std::vector<size_t> position(db.rules.size());
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  // A worker needs only the graphs of the rules it may try (`keep`).
  const bool release = world && pool_releases_graphs(*world, db);
  std::vector<char> keep;  // releasing workers: the first pass's rules, the only ones a later pass tries
  std::optional<ProvenBefore> last_index;
  for (size_t from = 0; from < order.size();) {
    const std::vector<int> todo = to_try(db.rules, order, from);
    if (todo.empty()) break;
    if (release && keep.empty()) {
      keep.assign(db.rules.size(), 0);
      for (int k : todo) keep[size_t(k)] = 1;
    }
    // Built at the first attempt, so that rank 0 of a pool, which only hands
    // rules out, never holds it (at 4 operators it is 1.8 GB). Statuses change
    // only between passes on the ranks that attempt, so it is the pass's index.
    std::optional<ProvenBefore> proven_index;
    std::vector<bool> was_proven;
    for (int k : todo) was_proven.push_back(is_proven(db.rules[k].status));
    auto attempt = [&](int k) {
      if (!proven_index) {
        proven_index =
            proven_before(db, order, last_index ? &*last_index : nullptr, release ? &keep : nullptr);
        last_index.reset();
      }
      const ProvenBefore& proven = *proven_index;
      RuleVerdict v{db.rules[k].status, 0, 0, "", {}};
      // A rule that differs at a member of its family keeps its status:
      // `verify --revalidate` is what refutes it.
      std::optional<FoundDerivation> d = derive_rule(db.rules[k], proven.proven, options, proven.first_n[k]);
      if (d && !family_difference(db.rules[k]))
        v = with_family(RuleVerdict{RuleStatus::derived, 0, 0, d->note, std::move(d->steps)}, db.rules[k]);
      return v;
    };
    ProgressLine progress("derive: pass " + std::to_string(summary.passes + 1), "tried",
                          int64_t(todo.size()));
    int64_t tried = 0, derived = 0;
    auto store = [&](int k, const RuleVerdict& v) {
      Rule& rule = db.rules[k];
      rule.status = RuleStatus::derived;
      rule.note = v.note;
      rule.derivation = v.derivation;
      rule.family = v.family;
      ++summary.by_steps[int(v.derivation.size())];
      if (v.note == kClassPathNote) ++summary.by_class_path;
      if (v.note == kPartsNote) ++summary.by_parts;
      if (v.note == kPerOutputNote) ++summary.by_outputs;
      ++summary.derived;
    };
    auto record = [&](int k, const RuleVerdict& v) {
      derived += v.status == RuleStatus::derived;
      progress.update(++tried, ", " + std::to_string(derived) + " derived");
      if (v.status == RuleStatus::derived) store(k, v);
      if (recorded) recorded();
    };
    if (world)
      run_verifier_pool(*world, todo, attempt, record);
    else
      for (int k : todo) record(k, attempt(k));
    share_results(world, db.rules, todo);
    if (proven_index) last_index = std::move(proven_index);
    summary.tried += int64_t(todo.size());
    ++summary.passes;
    // Only a newly proven rule can make a later rule derivable: the next pass
    // starts after the first one.
    from = order.size();
    for (size_t t = 0; t < todo.size(); ++t)
      if (!was_proven[t] && db.rules[todo[t]].status == RuleStatus::derived)
        from = std::min(from, position[todo[t]] + 1);
  }
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace superopt::verify
