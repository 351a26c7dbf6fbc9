// optimize(): choose the usable rules, search (whole graph or split into
// parts), count what is precomputed at load time, and check the result; when
// the check fails, drop the rule of the first application that breaks equality
// and search again.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "runtime/core/error.h"
#include "runtime/core/graph_analysis.h"
#include "runtime/core/memory_budget.h"
#include "runtime/cost/cost_model.h"
#include "search/backtrack.h"
#include "search/eqsat_search.h"
#include "search/fold.h"
#include "search/graph_split.h"
#include "search/numerical_check.h"
#include "search/part_search.h"
#include "search/search.h"
#include "search/sequence_search.h"
#include "search/step_check.h"

namespace superopt {

// compile_usable_rules's result: the index and how many rules (not directions) it took.
struct UsableRules {
  RuleIndex index;
  int rules = 0;
};

bool rule_usable(RuleStatus status, const SearchOptions& o) {
  if (o.minimal_rules) return status == RuleStatus::verified;  // proven, derived from no other
  return is_proven(status) || (o.allow_unverified && status == RuleStatus::candidate);
}

namespace {

double seconds_since(search::Clock::time_point start) {
  return std::chrono::duration<double>(search::Clock::now() - start).count();
}

bool usable(const Rule& r, const SearchOptions& o) {
  return rule_usable(r.status, o);
}

// Operators whose inputs are all weights, constants or such operators: TASO's
// inference preprocessing computes them once at load time (they cost 0).
int64_t count_precomputed(const Graph& g) {
  std::vector<bool> fixed = weight_only_nodes(g);
  int64_t count = 0;
  for (NodeId id = 0; id < g.num_nodes(); ++id) count += fixed[id] && g.node(id).num_inputs > 0;
  return count;
}

// Both directions of every usable rule but the dropped ones; `usable_rules`
// counts the rules (not directions) taken.
RuleIndex usable_rule_index(const std::vector<Rule>& rules, const SearchOptions& options,
                            const std::set<int>& dropped, int& usable_rules) {
  std::vector<DirectedRule> directed;
  usable_rules = 0;
  for (size_t i = 0; i < rules.size(); ++i) {
    if (!usable(rules[i], options) || dropped.count(int(i))) continue;
    ++usable_rules;
    for (DirectedRule& d : compile_rule(rules[i], int(i))) directed.push_back(std::move(d));
  }
  return index_rules(std::move(directed));
}

// The optimized graph's half of the check takes about what the input's took,
// and folding its weight-only operators (fold_precomputed, before the check)
// about what folding the input's takes: the search leaves that much with a
// margin, and a share of the limit for its own last step (it finishes the
// graph it expands) and the check's set-up.
constexpr double kCheckTimeMargin = 1.25;
constexpr double kCheckLimitShare = 0.1;

// The end of the time limit. It counts from the start of the whole run: the
// time the loading and preparing took is the search's no more.
search::Clock::time_point deadline(const SearchOptions& options) {
  return options.started + std::chrono::duration_cast<search::Clock::duration>(
                               std::chrono::duration<double>(options.time_limit_s));
}

// The options of the search: the time limit less what the fold and the check will need.
SearchOptions search_options(const SearchOptions& options, const search::CheckReference* reference,
                             double fold_seconds) {
  SearchOptions o = options;
  if (reference)
    o.time_limit_s = std::max(0.0, o.time_limit_s * (1 - kCheckLimitShare) -
                                       kCheckTimeMargin * (reference->seconds + fold_seconds));
  return o;
}

// How long folding g's weight-only operators takes (what follows the search: an
// imported CNN's folded batch norms are hundreds of them, a second or more on
// a loaded machine, which a search that ran to its deadline left no time for,
// and the check was cut short). 0 when there is nothing to fold.
double fold_seconds(const Graph& g) {
  const auto start = search::Clock::now();
  const search::Folded folded = search::fold_precomputed(g);
  return folded.operators > 0 ? seconds_since(start) : 0.0;
}

search::SearchLimits search_limits(const SearchOptions& options) {
  search::SearchLimits limits;
  limits.alpha = options.alpha;
  limits.budget = options.budget;
  limits.max_queue = options.max_queue;
  if (options.exhaustive) {
    limits.alpha = std::numeric_limits<double>::infinity();
    limits.budget = std::numeric_limits<int64_t>::max() / 128;  // the split takes percentages of it
    limits.max_queue = std::numeric_limits<int>::max();
  }
  limits.deadline = {deadline(options), options.stop_requested};
  limits.max_held_bytes = memory_budget_bytes();  // the search's graph copies (graph_bytes.h)
  limits.alternatives = options.alternatives;
  return limits;
}

search::SequenceLimits sequence_limits(const SearchOptions& options) {
  search::SequenceLimits limits;
  limits.max_length = options.max_length;
  limits.sample_size = options.sample_size;
  limits.eta = options.eta;
  limits.budget = options.budget;
  limits.deadline = {deadline(options), options.stop_requested};
  return limits;
}

// The chosen search over the whole graph, or backtracking split into parts.
search::SplitOutcome run_search(const Graph& g, const RuleIndex& index, CostModel& cost,
                                const SearchOptions& options) {
  search::SequenceLimits sequences = sequence_limits(options);
  switch (options.search) {
    case SearchKind::backtracking:
      return search::split_and_search(g, index, cost, search_limits(options), options.split_threshold);
    case SearchKind::pruning:
      return {search::pruning_search(g, index, cost, sequences)};
    case SearchKind::dpp:
      return {search::dpp_search(g, index, cost, sequences)};
    case SearchKind::sampling:
      return {search::sampling_search(g, index, cost, sequences)};
    case SearchKind::exhaustive:
      return {search::enumeration_search(g, index, cost, sequences)};
    case SearchKind::eqsat:
      break;  // search_once runs it: it has no traces
  }
  throw Error("unknown search");
}

// The applications per rule direction, a rule's two directions cancelling:
// fusing three matmuls to reassociate them and splitting them again applies
// a rule 10 times each way, which is no net rewrite by that rule.
std::map<std::string, int> net_rules_applied(const RuleIndex& index, const std::vector<int>& applied) {
  std::map<int, int> net;                        // database rule -> forward minus reversed applications
  std::map<std::pair<int, bool>, int> directed;  // (rule, reversed) -> index.rules entry
  for (int r : applied) {
    const DirectedRule& d = index.rules[r];
    net[d.rule] += d.reversed ? -1 : 1;
    directed[{d.rule, d.reversed}] = r;
  }
  std::map<std::string, int> out;
  for (const auto& [rule, count] : net)
    if (count != 0) out[index.rules[directed.at({rule, count < 0})].label] = std::abs(count);
  return out;
}

// The search's alternatives, folded as its best graph is.
std::vector<AlternativeGraph> folded_alternatives(const RuleIndex& index,
                                                  const std::vector<search::Alternative>& found) {
  std::vector<AlternativeGraph> out;
  for (const search::Alternative& a : found) {
    search::Folded folded = search::fold_precomputed(*a.graph);
    AlternativeGraph alt{std::move(folded.graph), a.cost_ms, {}, {}, folded.operators};
    std::vector<int> applied = search::applied_rules(a.traces);
    for (int r : applied) alt.rule_sequence.push_back(index.rules[r].label);
    alt.rules_applied = net_rules_applied(index, applied);
    out.push_back(std::move(alt));
  }
  return out;
}

// One search with the rules of `index`, then folding: fills the result's
// graph, costs and rules applied (check and suspects untouched) and returns the
// traces of its best graph.
// Equality saturation, then folding, as search_once: every extracted rule
// direction is listed once in the sequence (there is no order), with the
// e-nodes it added as its count.
void eqsat_once(const Graph& g, const RuleIndex& index, CostModel& cost, const SearchOptions& options,
                OptimizeResult& result) {
  auto start = search::Clock::now();
  search::EqsatOutcome outcome = search::eqsat_search(g, index, cost, options, deadline(options));
  result.graph = std::move(outcome.best);
  result.cost_before_ms = outcome.start_cost_ms;
  result.cost_after_ms = outcome.best_cost_ms;
  result.eqsat = outcome.stats;
  result.finished = outcome.stats.stop_reason == "saturated";
  result.rule_sequence.clear();
  result.rules_applied.clear();
  for (auto [r, count] : outcome.rules_involved) {
    result.rule_sequence.push_back(index.rules[r].label);
    result.rules_applied[index.rules[r].label] = count;
  }
  result.eqsat.rules_involved = result.rule_sequence;
  search::Folded folded = search::fold_precomputed(result.graph);
  result.graph = std::move(folded.graph);
  result.folded_operators = folded.operators;
  result.precomputed_operators = count_precomputed(result.graph);
  result.search_seconds += seconds_since(start);
  result.phase_seconds.search += seconds_since(start);
}

std::vector<search::Trace> search_once(const Graph& g, const RuleIndex& index, CostModel& cost,
                                       const SearchOptions& options, OptimizeResult& result) {
  if (options.search == SearchKind::eqsat) {
    eqsat_once(g, index, cost, options, result);
    return {};
  }
  auto start = search::Clock::now();
  search::SplitOutcome outcome = run_search(g, index, cost, options);
  result.graph = std::move(outcome.search.best);
  result.cost_before_ms = outcome.search.start_cost_ms;
  result.cost_after_ms = outcome.search.best_cost_ms;
  result.graphs_explored += outcome.search.explored;
  result.finished = outcome.search.finished;
  result.memory_full |= outcome.search.memory_full;
  result.search_held_bytes = std::max(result.search_held_bytes, outcome.search.held_bytes);
  result.parts = outcome.parts;
  std::vector<int> applied = search::applied_rules(outcome.search.traces);
  result.rule_sequence.clear();
  for (int r : applied) result.rule_sequence.push_back(index.rules[r].label);
  result.rules_applied = net_rules_applied(index, applied);
  result.search_seconds += seconds_since(start);
  search::Folded folded = search::fold_precomputed(result.graph);
  result.graph = std::move(folded.graph);
  result.folded_operators = folded.operators;
  result.precomputed_operators = count_precomputed(result.graph);
  result.phase_seconds.split += outcome.split_seconds;
  result.alternatives = folded_alternatives(index, outcome.search.alternatives);
  result.phase_seconds.search += seconds_since(start) - outcome.split_seconds;
  return std::move(outcome.search.traces);
}

// The time limit cut the check short, or the check could not tell: the result
// is the input graph, which needs no check; the search's rewrite is discarded
// (and counted).
void keep_input_unchecked(const Graph& g, OptimizeResult& result) {
  result.unchecked_applications = int(result.rule_sequence.size());
  result.graph = g;
  result.cost_after_ms = result.cost_before_ms;
  result.rule_sequence.clear();
  result.rules_applied.clear();
  result.folded_operators = 0;
  result.precomputed_operators = count_precomputed(g);
  result.check.passed = true;  // what is returned is the input itself
  result.alternatives.clear();
  result.check.note += ": the input graph is the result, unchanged";
}

// The input's half of the check, before the search (whose time limit it
// shortens); nullopt without the check.
std::optional<search::CheckReference> check_reference(const Graph& g, const SearchOptions& options,
                                                      PhaseSeconds& phase_seconds) {
  if (!options.check) return std::nullopt;
  const auto start = search::Clock::now();
  search::CheckReference ref = search::check_reference(g, options.seed, options.check_flops_limit,
                                                       {deadline(options), options.stop_requested});
  phase_seconds.check += seconds_since(start);
  return ref;
}

// No optimized graph can pass when the input's half of the check was cut short
// or is inconclusive: the result is the input, without searching.
bool nothing_can_pass(const Graph& g, const search::CheckReference& ref, CostModel& cost,
                      OptimizeResult& result) {
  if (!ref.check.cut_short && !ref.check.inconclusive) return false;
  result.cost_before_ms = graph_cost_ms(g, cost);
  result.check = ref.check;
  keep_input_unchecked(g, result);
  return true;
}

}  // namespace

const char* search_kind_name(SearchKind kind) {
  switch (kind) {
    case SearchKind::backtracking:
      return "backtracking";
    case SearchKind::pruning:
      return "pruning";
    case SearchKind::dpp:
      return "dpp";
    case SearchKind::sampling:
      return "sampling";
    case SearchKind::exhaustive:
      return "exhaustive";
    case SearchKind::eqsat:
      return "eqsat";
  }
  return "?";
}

std::shared_ptr<const UsableRules> compile_usable_rules(const std::vector<Rule>& rules,
                                                        const SearchOptions& options) {
  auto compiled = std::make_shared<UsableRules>();
  compiled->index = usable_rule_index(rules, options, {}, compiled->rules);
  return compiled;
}

OptimizeResult optimize(const Graph& g, const std::vector<Rule>& rules, CostModel& cost,
                        const SearchOptions& given) {
  SearchOptions options = given;  // eqsat's failure falls back to backtracking
  std::set<int> dropped;          // suspects, by index in `rules`
  OptimizeResult result;
  if (options.check) search::check_memory_for_check(g, options.check_flops_limit);
  std::optional<search::CheckReference> reference;
  double input_fold_seconds = 0;
  for (result.rounds = 1;; ++result.rounds) {
    int usable_rules = 0;
    auto preprocess_start = search::Clock::now();
    std::optional<RuleIndex> own_index;  // compiled here unless given (and nothing dropped)
    if (!options.compiled_rules || !dropped.empty())
      own_index = usable_rule_index(rules, options, dropped, usable_rules);
    else
      usable_rules = options.compiled_rules->rules;
    const RuleIndex& index = own_index ? *own_index : options.compiled_rules->index;
    result.phase_seconds.preprocess += seconds_since(preprocess_start);
    if (result.rounds == 1 && usable_rules == 0)
      throw Error(options.allow_unverified ? "the rule database has no verified or candidate rule"
                                           : "the rule database has no verified rule (--allow-unverified "
                                             "uses candidate rules)");
    result.rules_used = int(index.rules.size());
    if (result.rounds == 1) reference = check_reference(g, options, result.phase_seconds);
    if (result.rounds == 1 && reference) {
      const auto fold_start = search::Clock::now();
      input_fold_seconds = fold_seconds(g);
      result.phase_seconds.preprocess += seconds_since(fold_start);
    }
    if (reference && nothing_can_pass(g, *reference, cost, result)) break;
    const SearchOptions searching =
        search_options(options, reference ? &*reference : nullptr, input_fold_seconds);
    if (result.rounds == 1)
      result.search_time_left_s =
          std::chrono::duration<double>(deadline(searching) - search::Clock::now()).count();
    std::vector<search::Trace> traces = search_once(g, index, cost, searching, result);
    if (search::stop_requested(options.stop_requested)) {  // stopped from outside: nothing more is checked
      result.check.cut_short = true;
      result.check.note = "stopped on request";
      keep_input_unchecked(g, result);
      break;
    }
    if (!options.check) break;
    if (result.rule_sequence.empty() && result.folded_operators == 0) {
      // The graph as it came (the search found nothing, or had no time left):
      // nothing to compare with the reference.
      result.graph = g;
      result.cost_after_ms = result.cost_before_ms;
      result.check = {true, true, 0, "not needed: the graph is unchanged"};
      break;
    }
    auto check_start = search::Clock::now();
    result.check = search::check_against(*reference, g, result.graph, options.seed, options.check_flops_limit,
                                         {deadline(options), options.stop_requested});
    result.phase_seconds.check += seconds_since(check_start);
    if (result.check.passed) break;
    if (result.check.cut_short || result.check.inconclusive) {
      keep_input_unchecked(g, result);
      break;
    }
    if (options.search == SearchKind::eqsat) {
      // The extracted graph broke equality: name the rules it came from and
      // take backtracking's result, which checks (and drops suspects) itself.
      result.eqsat.fell_back = true;
      options.search = SearchKind::backtracking;
      continue;
    }
    std::optional<search::BrokenStep> broken;
    check_start = search::Clock::now();
    if (int(result.suspect_rules.size()) < options.max_suspects)
      broken = search::first_broken_step(traces, options.seed, options.check_flops_limit, deadline(options));
    result.phase_seconds.check += seconds_since(check_start);
    if (!broken) {  // out of rounds, or no single application to blame (folding, rounding piling up)
      result.graph = g;
      result.alternatives.clear();
      break;
    }
    const DirectedRule& suspect = index.rules[broken->rule];
    result.suspect_rules.push_back({suspect.rule, suspect.label, broken->check.max_relative_error});
    dropped.insert(suspect.rule);
  }
  return result;
}

}  // namespace superopt
