// The optimizer: cost-based backtracking search over rule applications
// (MetaFlow/TASO), with MetaFlow's flow-based graph split, and a numerical
// check of every result on the CPU reference. `superopt optimize`.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/cost/cost_model.h"
#include "runtime/db/rule_database.h"

namespace superopt {

// Which search (OCGGS Table 3's columns): MetaFlow's backtracking (MF with
// the split, TS without), OCGGS's Pruning, DPP and Sampling (Algorithms 1-3),
// the brute-force enumeration of all sequences of length <= K (ENU), and
// equality saturation with extraction (Tensat: search/eqsat_search.h).
enum class SearchKind { backtracking, pruning, dpp, sampling, exhaustive, eqsat };
const char* search_kind_name(SearchKind kind);

struct UsableRules;  // the usable rules compiled for matching (compile_usable_rules)

struct SearchOptions {
  SearchKind search = SearchKind::backtracking;
  // OCGGS's parameters (the paper's defaults): sequences of at most max_length
  // substitutions (not backtracking); Sampling keeps sample_size sequences
  // per length and allows eta successive cost increases.
  int max_length = 10;
  int sample_size = 20;
  int eta = 1;
  double alpha = 1.05;    // keep graphs costing less than alpha * best (1 = greedy)
  int64_t budget = 1000;  // graphs taken from the queue, over the whole run
  // Wall clock for the whole run, counted from `started`: loading, preparing
  // the rules, the numerical check and the search share it. The check runs the
  // input first; the search then stops early enough for the optimized graph's
  // half (1.25 times as long, and 10% of the limit). A check the limit cuts
  // short leaves the input graph as the result (it needs no check): nothing
  // unchecked is returned.
  double time_limit_s = 60;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  // Set from another thread to stop the run early (the Python package on
  // Ctrl-C): the searches and the numerical check look at it where they look
  // at the deadline, and optimize() then returns the input graph, the search's
  // work dropped unchecked. Not seen by eqsat's saturation, which stops at its
  // own limits. Null: never stopped.
  const std::atomic<bool>* stop_requested = nullptr;
  // The usable rules compiled beforehand by compile_usable_rules with the same
  // rules and options (allow_unverified, minimal_rules): the first search uses
  // them instead of compiling its own (a caller that optimizes many graphs
  // with one database compiles once). Null: optimize() compiles them.
  std::shared_ptr<const UsableRules> compiled_rules;
  int split_threshold = 30;  // operators per part; 0 = no split
  int max_queue = 256;       // graphs held in the queue; the costliest go first
  // MetaFlow's baseline: no alpha pruning, no budget, no queue bound; only the
  // time limit stops it (OptimizeResult::finished says whether it ran out).
  bool exhaustive = false;
  bool allow_unverified = false;
  // Only the minimal set (verified, not derived): a derived rule is a chain of
  // minimal ones, so the search can reach what it does in more steps.
  bool minimal_rules = false;
  bool check = true;  // run the numerical check
  uint64_t seed = 1;  // of the check's random inputs and weights
  // Largest model the check runs at full size, in FLOPs; larger ones run at a
  // reduced spatial size.
  int64_t check_flops_limit = 2'000'000'000;
  // When the check fails: rules dropped as suspects, one per new search, before
  // giving up (0: give up at once).
  int max_suspects = 3;
  // Graphs the backtracking search keeps beside its best (OptimizeResult::alternatives).
  int alternatives = 3;
  // eqsat (runtime/egraph/): Tensat's safeguards, and the extraction.
  int eqsat_max_nodes = 30000;     // e-nodes: the saturation stops adding past this
  int eqsat_max_iterations = 8;    // match-apply-rebuild rounds
  int eqsat_multi_iterations = 2;  // rounds that apply multi-output rules (Tensat's k_multi)
  int eqsat_match_limit = 0;       // egg's BackoffScheduler: matches per rule and round before a ban; 0: off
  // The whole eqsat search's wall clock, all rounds: each round saturates for
  // 60 % of what is left (and at most half the optimizer's time left), then extracts.
  double eqsat_time_limit_s = 10;
  // Rounds of saturation, each seeded with the graph the previous one extracted
  // (search/README.md, "Rounds"): a round stops at its limits before long
  // sequences exist; the next starts where the cheap part of the way ends.
  int eqsat_rounds = 3;
  bool eqsat_ilp = true;  // extract by ILP (CBC); false: greedy only
  // The ILP's share; the greedy choice stands when it runs out. 4 s: where CBC
  // proved an optimum (5 of 14 models) the switched greedy choice had it already,
  // and 10 s put searches at 12-17 s against the 10 s target (search/README.md).
  double eqsat_ilp_time_limit_s = 4;
};

// What equality saturation did (OptimizeResult::eqsat; --search eqsat).
struct EqsatStats {
  bool ran = false;
  int rounds = 0;                  // saturations run, each seeded with the last extraction
  int64_t nodes = 0, classes = 0;  // the largest e-graph's size when its saturation stopped
  int iterations = 0;              // this and the counts below: summed over rounds
  std::string stop_reason;         // the last round's: saturated, iteration limit, node limit, time limit
  int64_t matches = 0, applications = 0, not_confirmed = 0, refused_merges = 0;
  int64_t bans = 0;  // rules banned for a round by the scheduler (eqsat_match_limit)
  double saturation_seconds = 0;
  std::string extraction;  // "greedy" or "ilp"
  std::string ilp_status;  // optimal, time limit, no solution: greedy kept
  double extraction_seconds = 0;
  double ilp_gap = 0;  // (objective - best bound) / objective
  double ilp_objective_ms = 0, ilp_bound_ms = 0, greedy_objective_ms = 0, dag_objective_ms = 0;
  double switched_objective_ms = 0;  // the cheaper greedy choice after joint tuple switches (tuple_switch.h)
  int ilp_variables = 0, ilp_constraints = 0;
  // Under a model that costs graphs whole, the one-class switches judged by
  // the built graph's cost after extraction (runtime/egraph/graph_polish.h).
  int64_t polish_trials = 0, polish_kept = 0;
  bool polish_cut_short = false;
  double polish_seconds = 0;
  // The rule directions that added an extracted e-node. When the check failed
  // on eqsat's graph (fell_back), the result is backtracking's and these were involved.
  bool fell_back = false;
  std::vector<std::string> rules_involved;
};

struct NumericalCheck {
  bool ran = false;
  bool passed = false;
  double max_relative_error = 0;
  std::string note;           // how it ran, e.g. "at reduced size: image inputs 1x3x32x32"
  bool cut_short = false;     // the time limit ran out during the check (then not ran)
  bool inconclusive = false;  // the input's outputs are not finite on its values (then not ran)
};

// A rule whose application broke a search's result: the first application that
// failed the numerical check on its own. It was dropped and the search ran again.
struct SuspectRule {
  int id = -1;                    // index in the rule list (the database)
  std::string label;              // the direction applied, e.g. "17>: relu -> "
  double max_relative_error = 0;  // of that application alone
};

// Where the time went, in seconds: reading the model and the rules (`load`),
// compiling and indexing the rules (`preprocess`), the graph split (`split`),
// the search of the parts, seams and whole graph and the folding (`search`),
// and the numerical check (`check`, with the re-checks of single applications
// that look for a suspect rule after a failure).
struct PhaseSeconds {
  double load = 0;
  double preprocess = 0;
  double split = 0;
  double search = 0;
  double check = 0;
};

// A graph the search reached beside its result (folded like it), for the
// end-to-end timing of search/end_to_end.h. Not checked numerically: whoever
// returns one checks it first.
struct AlternativeGraph {
  Graph graph;
  double cost_ms = 0;
  std::vector<std::string> rule_sequence;
  std::map<std::string, int> rules_applied;
  int folded_operators = 0;
};

struct OptimizeResult {
  Graph graph;
  double cost_before_ms = 0;
  double cost_after_ms = 0;
  int64_t graphs_explored = 0;  // taken from the queue and expanded (OCGGS: whose substitutions were found)
  bool finished = false;        // every search emptied its queue before a limit stopped it
  // The backtracking search's graph copies reached the memory budget
  // (--max-memory): it stopped exploring there and kept the best graph found.
  bool memory_full = false;
  int64_t search_held_bytes = 0;  // the most graph copies one search held (search/graph_bytes.h)
  double search_seconds = 0;
  // What the first search had when it started: --time-limit less loading,
  // preparing, and what the fold and the numerical check after it will need
  // (0 or less: it had none, and the graph comes back as it came).
  double search_time_left_s = 0;
  int parts = 1;  // after the graph split
  // Along the best graph's history: label -> net applications (a rule's two
  // directions cancel; a rule applied as often each way is left out), and
  // every application in order.
  std::map<std::string, int> rules_applied;
  std::vector<std::string> rule_sequence;
  int rules_used = 0;                 // rules (directions) the search could apply
  int64_t precomputed_operators = 0;  // computed from weights (without data) and constants at load time
  int folded_operators = 0;           // computed from weights with data: folded into new weights
  NumericalCheck check;
  // The check was cut short by the time limit or inconclusive: the result is
  // the input graph, and these applications (the search's best graph) were
  // discarded unchecked.
  int unchecked_applications = 0;
  std::vector<SuspectRule> suspect_rules;  // in the order found
  int rounds = 1;                          // searches run: one, plus one per suspect dropped
  PhaseSeconds phase_seconds;              // load is the caller's to fill
  // The backtracking search's other cheapest graphs, cheapest first (empty for
  // the OCGGS searches, and when the result is the input for want of time or of
  // a suspect to drop).
  std::vector<AlternativeGraph> alternatives;
  EqsatStats eqsat;  // --search eqsat only
};

// Optimizes g with the rules (only verified ones unless allow_unverified).
// Throws Error when no rule may be used or a rule uses an operator the model's
// registry does not know. When the check fails, the first application that
// fails it alone names a suspect rule, which is dropped before searching again
// (at most max_suspects times, each search with the full budget; all share the
// time limit, counted from options.started). The result's
// graph is g itself when the check still fails or the failure cannot be pinned
// on one application; graphs_explored and search_seconds cover every search,
// the rest describes the last.
OptimizeResult optimize(const Graph& g, const std::vector<Rule>& rules, CostModel& cost,
                        const SearchOptions& options);

// Whether a rule of this status is one the search may use: proven (verified
// or derived), or with minimal_rules verified alone (derived from no other),
// or with allow_unverified a candidate too. Readers of a database pass it to
// RuleDatabase::read so that the other rules' graphs are never parsed.
bool rule_usable(RuleStatus status, const SearchOptions& options);

// Both directions of every rule usable under the options (allow_unverified,
// minimal_rules), compiled and indexed for matching: SearchOptions::compiled_rules.
std::shared_ptr<const UsableRules> compile_usable_rules(const std::vector<Rule>& rules,
                                                        const SearchOptions& options);

// `superopt optimize MODEL --rules FILE ...`
int optimize_command(const std::vector<std::string>& args);

}  // namespace superopt
