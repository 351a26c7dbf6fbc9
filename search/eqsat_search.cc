// optimize --search eqsat: seed, saturate, extract, compare (see eqsat_search.h).
#include "search/eqsat_search.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>

#include "runtime/egraph/dag_extract.h"
#include "runtime/egraph/extract.h"
#include "runtime/egraph/ilp_extract.h"
#include "runtime/egraph/runner.h"
#include "runtime/egraph/tuple_switch.h"

namespace superopt::search {
namespace {

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
};

// The graph `choice` builds, kept in `round` if it is the cheapest yet.
void keep_if_cheaper(const egraph::EGraph& eg, const egraph::Runner& runner, const Graph& seed,
                     const std::vector<egraph::ClassId>& roots, const std::vector<egraph::NodeIndex>& choice,
                     CostModel& cost, Round& round) {
  std::optional<Graph> graph = egraph::build_graph(eg, seed, roots, choice);
  if (!graph) return;  // a cycle (greedy never; the ILP's constraints forbid it)
  const double c = graph_cost_ms(*graph, cost);
  if (c >= round.cost_ms) return;
  round.best = std::move(*graph);
  round.cost_ms = c;
  round.rules_involved = involved(eg, runner, roots, choice);
}

// One round: seeds an e-graph with `seed`, saturates until `round_end` (or the
// e-graph's limits), extracts, and returns the cheapest graph built that is
// cheaper than `seed_cost_ms` (else none). Another round may follow when
// `may_continue` and the rounds' clock (`saturation_end`) has time left. Adds to `stats`.
Round saturate_and_extract(const Graph& seed, double seed_cost_ms, const RuleIndex& rules, CostModel& cost,
                           const SearchOptions& options, bool may_continue, Clock::time_point round_end,
                           Clock::time_point saturation_end, Clock::time_point deadline, EqsatStats& stats) {
  const auto round_start = Clock::now();
  Round round;
  round.cost_ms = seed_cost_ms;
  egraph::EGraph eg;
  const std::vector<egraph::ClassId> roots = egraph::seed(eg, seed);
  egraph::RunnerLimits limits;
  limits.max_iterations = options.eqsat_max_iterations;
  limits.max_nodes = options.eqsat_max_nodes;
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
  // The ILP runs where no round follows: an earlier round's greedy gain is
  // seeded into the next e-graph, whose extraction sees more (on sru, 4 s of
  // CBC per round put the search at 16 s). A round follows a gain where the
  // rounds' clock has as much time left as this round took so far (the next
  // one grows a similar e-graph): on CNNs, whose first round takes most of
  // the clock, a second found nothing and cost 5 s.
  auto time_left = [&] {
    const auto now = Clock::now();
    return now < deadline && seconds_between(now, saturation_end) >= seconds_between(round_start, now);
  };
  round.next = may_continue && round.best && time_left();
  if (options.eqsat_ilp && !round.next) {
    const double left_s = std::max(0.0, seconds_between(Clock::now(), deadline));
    // The solver starts from the cheapest greedy choice that builds (acyclic).
    egraph::IlpResult ilp =
        egraph::ilp_extract(eg, node_cost, roots, switched, std::min(options.eqsat_ilp_time_limit_s, left_s));
    record_ilp(ilp, stats);
    if (getenv("SUPEROPT_ILP_REPORT"))  // the problem's size before and after its reductions
      std::cerr << "eqsat ILP: " << ilp.reachable_nodes << " e-nodes reachable, " << ilp.nodes
                << " e-nodes and " << ilp.classes << " classes given to CBC, " << ilp.variables
                << " columns, " << ilp.constraints << " rows, " << ilp.status << ", objective "
                << ilp.objective_ms << " ms, bound " << ilp.bound_ms << " ms, " << ilp.seconds << " s\n";
    const bool greedy_gain = round.best.has_value();
    if (ilp.solved) keep_if_cheaper(eg, runner, seed, roots, ilp.extraction.choice, cost, round);
    // So does one after the ILP's gain, where greedy had none.
    round.next = may_continue && !greedy_gain && round.best && time_left();
  }
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
  // The rounds share the saturation's clock: at most eqsat_time_limit_s, and
  // at most half of the time left when each round starts.
  const auto saturation_end = start + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(options.eqsat_time_limit_s));
  for (int r = 0; r < options.eqsat_rounds; ++r) {
    const auto now = Clock::now();
    const auto round_end = std::min(now + (std::max(deadline, now) - now) / 2, saturation_end);
    Round round =
        saturate_and_extract(out.best, out.best_cost_ms, rules, cost, options, r + 1 < options.eqsat_rounds,
                             round_end, saturation_end, deadline, out.stats);
    out.stats.rounds = r + 1;
    if (round.best) {
      out.best = std::move(*round.best);
      out.best_cost_ms = round.cost_ms;
      add_involved(out.rules_involved, round.rules_involved);
    }
    if (!round.next) break;
  }
  return out;
}

}  // namespace superopt::search
