// optimize --search eqsat: seed, saturate, extract, compare (see eqsat_search.h).
#include "search/eqsat_search.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <map>
#include <optional>

#include "runtime/egraph/dag_extract.h"
#include "runtime/egraph/extract.h"
#include "runtime/egraph/graph_polish.h"
#include "runtime/egraph/ilp_extract.h"
#include "runtime/egraph/runner.h"
#include "runtime/egraph/tuple_switch.h"

namespace superopt::search {
namespace {

// The share of the eqsat search's time left that a round's saturation takes;
// the rest is for extracting: on resnet50 (taso-3, 40,000 e-nodes) greedy, DAG
// and tuple switches take about 0.3 s, the ILP what it is given (at most 4 s),
// and the polish under the CPU table about 2 s.
constexpr double kSaturationShare = 0.6;

// The share of --eqsat-time-limit the rounds plan with: what does not stop at
// a clock (the last graphs built and costed, CBC past its limit, folding)
// took up to 0.4 s more on inception_v3 and nasnet_a.
constexpr double kClockShare = 0.95;

// What the last round's extraction (polish and ILP) needs at least: a round
// follows another only where this is left besides.
constexpr double kLastExtractionSeconds = 2.5;

// The share of the time left the last ILP is given: CBC's time limit does not
// stop it at once (on sru 0.4-0.9 s past a limit of 3.2 s).
constexpr double kLastIlpShare = 0.75;

// The least time worth giving the ILP. CBC's time limit does not interrupt its
// first LP: on sru (27,000 columns) it took 2.5 s given 0.55 s, and it had
// not improved on the greedy choice.
constexpr double kLeastIlpSeconds = 1.5;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// The rule directions that added the extracted e-nodes, with how many operators each.
std::vector<std::pair<int, int>> involved(const egraph::EGraph& eg, const egraph::Runner& runner,
                                          const std::vector<egraph::ClassId>& roots,
                                          const std::vector<egraph::NodeIndex>& choice) {
  std::map<int, int> count;
  std::vector<char> seen(choice.size(), 0);
  std::vector<egraph::ClassId> stack(roots.begin(), roots.end());
  while (!stack.empty()) {
    const egraph::ClassId c = eg.find(stack.back());
    stack.pop_back();
    if (seen[c] || choice[c] < 0) continue;
    seen[c] = 1;
    const int r = runner.origin(choice[c]);
    if (r >= 0 && !eg.node(choice[c]).is_projection()) ++count[r];
    for (egraph::ClassId child : eg.node(choice[c]).children) stack.push_back(child);
  }
  return {count.begin(), count.end()};
}

// Over rounds: the largest e-graph, the work summed, the last round's stop.
void record_saturation(const egraph::EGraph& eg, const egraph::RunnerReport& report, EqsatStats& stats) {
  stats.ran = true;
  stats.nodes = std::max<int64_t>(stats.nodes, eg.num_nodes());
  stats.classes = std::max<int64_t>(stats.classes, eg.num_classes());
  stats.iterations += report.iterations;
  stats.stop_reason = egraph::stop_reason_name(report.stop);
  stats.matches += report.matches;
  stats.applications += report.applications;
  stats.not_confirmed += report.not_confirmed;
  stats.refused_merges += report.refused_merges;
  stats.bans += report.bans;
  stats.saturation_seconds += report.seconds;
}

void record_ilp(const egraph::IlpResult& ilp, EqsatStats& stats) {
  stats.ilp_status = ilp.status;
  stats.ilp_gap = ilp.gap;
  stats.ilp_objective_ms = ilp.objective_ms;
  stats.ilp_bound_ms = ilp.bound_ms;
  stats.ilp_variables = ilp.variables;
  stats.ilp_constraints = ilp.constraints;
}

// What one round of saturation and extraction found.
struct Round {
  std::optional<Graph> best;
  double cost_ms = 0;
  std::vector<std::pair<int, int>> rules_involved;
  bool next = false;  // another round follows, seeded with `best` (then no ILP ran)
  // Another round follows with the same seed and twice the e-nodes (then no
  // ILP ran): this one found nothing and its node limit came early.
  bool deeper = false;
  // The cheapest choice built so far (cost_ms: its graph's), cheaper than the
  // seed or not: where the polish (graph_polish.h) starts.
  egraph::Extraction cheapest_built{{}, std::numeric_limits<double>::infinity()};
};

// The graph `choice` builds, kept in `round` if it is the cheapest yet.
void keep_if_cheaper(const egraph::EGraph& eg, const egraph::Runner& runner, const Graph& seed,
                     const std::vector<egraph::ClassId>& roots, const std::vector<egraph::NodeIndex>& choice,
                     CostModel& cost, Round& round) {
  std::optional<Graph> graph = egraph::build_graph(eg, seed, roots, choice);
  if (!graph) return;  // a cycle (greedy never; the ILP's constraints forbid it)
  const double c = graph_cost_ms(*graph, cost);
  if (c < round.cheapest_built.cost_ms) round.cheapest_built = {choice, c};
  if (c >= round.cost_ms) return;
  round.best = std::move(*graph);
  round.cost_ms = c;
  round.rules_involved = involved(eg, runner, roots, choice);
}

// Under a model that costs graphs whole, one-class switches judged by the
// built graph's cost (graph_polish.h), from the cheapest choice built.
void polish(const egraph::EGraph& eg, const egraph::Runner& runner, const Graph& seed,
            const std::vector<egraph::ClassId>& roots, const std::vector<double>& node_cost, CostModel& cost,
            Clock::time_point until, Round& round, EqsatStats& stats) {
  if (!cost.costs_whole_graphs() || round.cheapest_built.choice.empty()) return;
  const auto start = Clock::now();
  egraph::PolishReport report;
  const egraph::Extraction polished =
      egraph::polish_by_graph_cost(eg, seed, roots, node_cost, round.cheapest_built, cost, until, report);
  stats.polish_trials += report.trials;
  stats.polish_kept += report.kept;
  stats.polish_cut_short = stats.polish_cut_short || report.cut_short;
  stats.polish_seconds += seconds_between(start, Clock::now());
  if (report.kept > 0) keep_if_cheaper(eg, runner, seed, roots, polished.choice, cost, round);
}

// The greedy choices, each kept in `round` if its graph is the cheapest yet;
// returns the cheapest by e-node costs after tuple switches (the ILP's start).
egraph::Extraction greedy_extractions(const egraph::EGraph& eg, const egraph::Runner& runner,
                                      const Graph& seed, const std::vector<egraph::ClassId>& roots,
                                      const std::vector<double>& node_cost, CostModel& cost, Round& round,
                                      EqsatStats& stats) {
  egraph::Extraction x = egraph::greedy_extract(eg, node_cost, roots);
  stats.greedy_objective_ms = x.cost_ms;
  // Greedy on tree costs counts a shared subgraph once per user; the DAG
  // variant sees sharing (merged matmuls read by several classes).
  const egraph::Extraction dag = egraph::dag_greedy_extract(eg, node_cost, roots);
  stats.dag_objective_ms = dag.cost_ms;
  // Both choose class by class; merged operators that pay only when every
  // class they feed takes them are switched in together afterwards.
  const bool dag_builds = dag.cost_ms < x.cost_ms && egraph::build_graph(eg, seed, roots, dag.choice);
  egraph::Extraction switched = egraph::switch_tuples(eg, node_cost, roots, dag_builds ? dag : x);
  // The switches are a local search, and greedy's start can bar the way: on
  // sru (taso-3) greedy takes the matmuls batched over time steps, from where
  // no single switch to the merged weights pays (0.3728 ms), while from the
  // input itself the merges of each step's three matmuls pay one by one, as
  // in backtracking (0.3678). So the seed, each class's oldest e-node
  // (acyclic, since an e-node's children are older), is a second start.
  egraph::Extraction seed_start;
  seed_start.choice.assign(x.choice.size(), -1);
  for (egraph::ClassId c : eg.class_ids()) seed_start.choice[c] = eg.eclass(c).nodes.front();
  const egraph::Extraction from_seed = egraph::switch_tuples(eg, node_cost, roots, seed_start);
  std::vector<std::vector<egraph::NodeIndex>> choices{x.choice, dag.choice, switched.choice,
                                                      from_seed.choice};
  if (from_seed.cost_ms < switched.cost_ms) switched = from_seed;
  stats.switched_objective_ms = switched.cost_ms;
  for (const auto& choice : choices) keep_if_cheaper(eg, runner, seed, roots, choice, cost, round);
  return switched;
}

// The extraction where no round follows: under a model that costs graphs
// whole the polish first (at most half the time left: on CNNs it is what pays,
// 3-12 switches in 1-2.5 s), then the ILP in the time left (on sru it is what
// pays, the polish keeps nothing there). An ILP gain where greedy had none
// starts another round when `time_left`; an ILP whose gain may do so has half
// of the time left, the last one kLastIlpShare.
template <typename TimeLeft>
void last_extraction(const egraph::EGraph& eg, const egraph::Runner& runner, const Graph& seed,
                     const std::vector<egraph::ClassId>& roots, const std::vector<double>& node_cost,
                     const egraph::Extraction& switched, CostModel& cost, const SearchOptions& options,
                     bool may_continue, Clock::time_point search_end, const TimeLeft& time_left, Round& round,
                     EqsatStats& stats) {
  const bool gain_before = round.best.has_value();
  const auto now = Clock::now();
  polish(eg, runner, seed, roots, node_cost, cost, now + (std::max(search_end, now) - now) / 2, round, stats);
  const double ilp_s =
      std::min(options.eqsat_ilp_time_limit_s, std::max(0.0, seconds_between(Clock::now(), search_end)) *
                                                   (may_continue ? 0.5 : kLastIlpShare));
  if (!options.eqsat_ilp || ilp_s < kLeastIlpSeconds) return;
  // The solver starts from the cheapest greedy choice that builds (acyclic).
  egraph::IlpResult ilp = egraph::ilp_extract(eg, node_cost, roots, switched, ilp_s);
  record_ilp(ilp, stats);
  if (getenv("SUPEROPT_ILP_REPORT"))  // the problem's size before and after its reductions
    std::cerr << "eqsat ILP: " << ilp.reachable_nodes << " e-nodes reachable, " << ilp.nodes
              << " e-nodes and " << ilp.classes << " classes given to CBC, " << ilp.variables << " columns, "
              << ilp.constraints << " rows, " << ilp.status << ", objective " << ilp.objective_ms
              << " ms, bound " << ilp.bound_ms << " ms, " << ilp.seconds << " s of " << ilp_s << "\n";
  if (ilp.solved) keep_if_cheaper(eg, runner, seed, roots, ilp.extraction.choice, cost, round);
  round.next = may_continue && !gain_before && round.best && time_left();
}

// One round: seeds an e-graph with `seed`, saturates until `round_end` (or the
// e-graph's limits), extracts, and returns the cheapest graph built that is
// cheaper than `seed_cost_ms` (else none). Another round may follow when
// `may_continue` and the search (ending at `search_end`) has time left; the
// ILP and the polish end by then. Adds to `stats`.
Round saturate_and_extract(const Graph& seed, double seed_cost_ms, const RuleIndex& rules, CostModel& cost,
                           const SearchOptions& options, int max_nodes, bool may_continue,
                           Clock::time_point round_end, Clock::time_point search_end, EqsatStats& stats) {
  const auto round_start = Clock::now();
  Round round;
  round.cost_ms = seed_cost_ms;
  egraph::EGraph eg;
  const std::vector<egraph::ClassId> roots = egraph::seed(eg, seed);
  egraph::RunnerLimits limits;
  limits.max_iterations = options.eqsat_max_iterations;
  limits.max_nodes = max_nodes;
  limits.multi_pattern_iterations = options.eqsat_multi_iterations;
  limits.match_limit = options.eqsat_match_limit;
  limits.deadline = round_end;
  egraph::Runner runner(eg, rules.rules, limits);
  const egraph::RunnerReport report = runner.run();
  record_saturation(eg, report, stats);
  // A saturated e-graph held every equivalent graph: a round from any of them
  // would grow the same one.
  may_continue = may_continue && report.stop != egraph::StopReason::saturated;

  const auto extract_start = Clock::now();
  const std::vector<double> node_cost = egraph::node_costs_ms(eg, cost);
  const egraph::Extraction switched =
      greedy_extractions(eg, runner, seed, roots, node_cost, cost, round, stats);
  // The ILP runs where no round follows: an earlier round's greedy gain is
  // seeded into the next e-graph, whose extraction sees more (on sru, 4 s of
  // CBC per round put the search at 16 s). A round follows a gain where the
  // search has as much time left as this round took so far (the next one
  // grows a similar e-graph) and the last extraction's time besides: on CNNs,
  // whose first round takes most of the clock, a second found nothing and
  // cost 5 s; on sru under the CPU table the ILP of round 2 finds 0.6957 ms,
  // where a third round, seeded with round 2's greedy graph, left its ILP 2 s
  // (0.7039) or none (1.1105).
  auto time_left = [&] {
    const auto now = Clock::now();
    return now < search_end &&
           seconds_between(now, search_end) >= seconds_between(round_start, now) + kLastExtractionSeconds;
  };
  round.next = may_continue && round.best && time_left();
  // Iterative deepening: where greedy found nothing in an e-graph that met
  // its node limit in a small part of the time, a larger one may hold what
  // pays (nasrnn under the CPU table: nothing at 30,000 e-nodes after 0.1 s,
  // 1.4821 against 1.5270 ms at 60,000), and the ILP on this one would take
  // the time it needs. Twice the e-nodes take about twice the time.
  round.deeper = may_continue && !round.best && report.stop == egraph::StopReason::node_limit &&
                 seconds_between(Clock::now(), search_end) >= 4 * seconds_between(round_start, Clock::now());
  if (!round.next && !round.deeper)
    last_extraction(eg, runner, seed, roots, node_cost, switched, cost, options, may_continue, search_end,
                    time_left, round, stats);
  stats.extraction_seconds += seconds_between(extract_start, Clock::now());
  return round;
}

void add_involved(std::vector<std::pair<int, int>>& to, const std::vector<std::pair<int, int>>& from) {
  std::map<int, int> sum(to.begin(), to.end());
  for (auto [r, count] : from) sum[r] += count;
  to.assign(sum.begin(), sum.end());
}

}  // namespace

EqsatOutcome eqsat_search(const Graph& g, const RuleIndex& rules, CostModel& cost,
                          const SearchOptions& options, Clock::time_point deadline) {
  EqsatOutcome out;
  out.best = g;
  out.start_cost_ms = out.best_cost_ms = graph_cost_ms(g, cost);
  out.stats.extraction = options.eqsat_ilp ? "ilp" : "greedy";
  const auto start = Clock::now();
  // eqsat_time_limit_s is the whole search's: each round saturates for
  // kSaturationShare of the time left (and at most half of what the optimizer
  // has left), extraction, the ILP and the polish end with it.
  const auto search_end = std::min(
      deadline, start + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(kClockShare * options.eqsat_time_limit_s)));
  int max_nodes = options.eqsat_max_nodes;
  for (int r = 0; r < options.eqsat_rounds; ++r) {
    const auto now = Clock::now();
    const auto left = std::max(search_end, now) - now;
    const auto round_end =
        std::min(now + std::chrono::duration_cast<Clock::duration>(left * kSaturationShare),
                 now + (std::max(deadline, now) - now) / 2);
    Round round = saturate_and_extract(out.best, out.best_cost_ms, rules, cost, options, max_nodes,
                                       r + 1 < options.eqsat_rounds, round_end, search_end, out.stats);
    out.stats.rounds = r + 1;
    if (round.best) {
      out.best = std::move(*round.best);
      out.best_cost_ms = round.cost_ms;
      add_involved(out.rules_involved, round.rules_involved);
    }
    if (round.deeper)
      max_nodes *= 2;
    else if (!round.next)
      break;
  }
  return out;
}

}  // namespace superopt::search
