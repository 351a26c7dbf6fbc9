// optimize --search eqsat: seed, saturate, extract, compare (see eqsat_search.h).
#include "search/eqsat_search.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>

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

void record_saturation(const egraph::EGraph& eg, const egraph::RunnerReport& report, EqsatStats& stats) {
  stats.ran = true;
  stats.nodes = eg.num_nodes();
  stats.classes = eg.num_classes();
  stats.iterations = report.iterations;
  stats.stop_reason = egraph::stop_reason_name(report.stop);
  stats.matches = report.matches;
  stats.applications = report.applications;
  stats.not_confirmed = report.not_confirmed;
  stats.refused_merges = report.refused_merges;
  stats.bans = report.bans;
  stats.saturation_seconds = report.seconds;
}

void record_ilp(const egraph::IlpResult& ilp, EqsatStats& stats) {
  stats.ilp_status = ilp.status;
  stats.ilp_gap = ilp.gap;
  stats.ilp_objective_ms = ilp.objective_ms;
  stats.ilp_bound_ms = ilp.bound_ms;
  stats.ilp_variables = ilp.variables;
  stats.ilp_constraints = ilp.constraints;
}

}  // namespace

EqsatOutcome eqsat_search(const Graph& g, const RuleIndex& rules, CostModel& cost,
                          const SearchOptions& options, Clock::time_point deadline) {
  EqsatOutcome out;
  out.best = g;
  out.start_cost_ms = out.best_cost_ms = graph_cost_ms(g, cost);
  egraph::EGraph eg;
  const std::vector<egraph::ClassId> roots = egraph::seed(eg, g);
  const auto start = Clock::now();
  egraph::RunnerLimits limits;
  limits.max_iterations = options.eqsat_max_iterations;
  limits.max_nodes = options.eqsat_max_nodes;
  limits.multi_pattern_iterations = options.eqsat_multi_iterations;
  limits.match_limit = options.eqsat_match_limit;
  limits.deadline = std::min(start + (std::max(deadline, start) - start) / 2,
                             start + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(options.eqsat_time_limit_s)));
  egraph::Runner runner(eg, rules.rules, limits);
  record_saturation(eg, runner.run(), out.stats);

  const auto extract_start = Clock::now();
  const std::vector<double> node_cost = egraph::node_costs_ms(eg, cost);
  egraph::Extraction x = egraph::greedy_extract(eg, node_cost, roots);
  out.stats.greedy_objective_ms = x.cost_ms;
  out.stats.extraction = options.eqsat_ilp ? "ilp" : "greedy";
  // Greedy on tree costs counts a shared subgraph once per user; the DAG
  // variant sees sharing (merged matmuls read by several classes).
  const egraph::Extraction dag = egraph::dag_greedy_extract(eg, node_cost, roots);
  out.stats.dag_objective_ms = dag.cost_ms;
  // Both choose class by class; merged operators that pay only when every
  // class they feed takes them are switched in together afterwards.
  const bool dag_builds = dag.cost_ms < x.cost_ms && egraph::build_graph(eg, g, roots, dag.choice);
  egraph::Extraction switched = egraph::switch_tuples(eg, node_cost, roots, dag_builds ? dag : x);
  // The switches are a local search, and greedy's start can bar the way: on
  // sru (taso-3) greedy takes the matmuls batched over time steps, from where
  // no single switch to the merged weights pays (0.3728 ms), while from the
  // input itself the merges of each step's three matmuls pay one by one, as
  // in backtracking (0.3678). So the input, each class's oldest e-node (the
  // seed's; acyclic, since an e-node's children are older), is a second start.
  egraph::Extraction input_start;
  input_start.choice.assign(x.choice.size(), -1);
  for (egraph::ClassId c : eg.class_ids()) input_start.choice[c] = eg.eclass(c).nodes.front();
  const egraph::Extraction from_input = egraph::switch_tuples(eg, node_cost, roots, input_start);
  std::vector<std::vector<egraph::NodeIndex>> choices{x.choice, dag.choice, switched.choice,
                                                      from_input.choice};
  if (from_input.cost_ms < switched.cost_ms) switched = from_input;
  out.stats.switched_objective_ms = switched.cost_ms;
  if (options.eqsat_ilp) {
    const double left_s = std::max(0.0, seconds_between(Clock::now(), deadline));
    // The solver starts from the cheapest greedy choice that builds (acyclic).
    egraph::IlpResult ilp =
        egraph::ilp_extract(eg, node_cost, roots, switched, std::min(options.eqsat_ilp_time_limit_s, left_s));
    record_ilp(ilp, out.stats);
    if (getenv("SUPEROPT_ILP_REPORT"))  // the problem's size before and after its reductions
      std::cerr << "eqsat ILP: " << ilp.reachable_nodes << " e-nodes reachable, " << ilp.nodes
                << " e-nodes and " << ilp.classes << " classes given to CBC, " << ilp.variables
                << " columns, " << ilp.constraints << " rows, " << ilp.status << ", objective "
                << ilp.objective_ms << " ms, bound " << ilp.bound_ms << " ms, " << ilp.seconds << " s\n";
    if (ilp.solved) choices.push_back(ilp.extraction.choice);
  }
  for (const auto& choice : choices) {
    std::optional<Graph> graph = egraph::build_graph(eg, g, roots, choice);
    if (!graph) continue;  // a cycle (greedy never; the ILP's constraints forbid it)
    const double c = graph_cost_ms(*graph, cost);
    if (c < out.best_cost_ms) {
      out.best = std::move(*graph);
      out.best_cost_ms = c;
      out.rules_involved = involved(eg, runner, roots, choice);
    }
  }
  out.stats.extraction_seconds = seconds_between(extract_start, Clock::now());
  return out;
}

}  // namespace superopt::search
