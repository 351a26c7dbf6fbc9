// accept_end_to_end(): time the input and the candidates interleaved on the
// CPU executor, and keep the fastest that beats the input beyond the noise and
// in every round.
#include "search/end_to_end.h"

#include <algorithm>
#include <cstdio>
#include <unordered_set>

#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/graph_analysis.h"
#include "runtime/core/graph_hash.h"
#include "runtime/cost/cost_table.h"
#include "runtime/exec/executor.h"
#include "search/numerical_check.h"

namespace superopt {
namespace {

// A graph to time and what returning it makes of the result.
struct Contender {
  const Graph* graph;
  TimedGraph timed;
  const AlternativeGraph* alternative = nullptr;  // null: the input or the search's best
};

bool unchanged(const OptimizeResult& r) {
  return r.rule_sequence.empty() && r.folded_operators == 0;
}

// The input, the search's best (when it differs), then the alternatives not
// equal to a graph already listed.
std::vector<Contender> contenders(const Graph& input, const OptimizeResult& r, int max_alternatives) {
  std::vector<Contender> out{{&input, {"input", r.cost_before_ms, {}, ""}}};
  std::unordered_set<uint64_t> seen{canonical_hash(input)};
  if (!unchanged(r) && seen.insert(canonical_hash(r.graph)).second)
    out.push_back({&r.graph, {"best", r.cost_after_ms, {}, ""}});
  int k = 0;
  for (const AlternativeGraph& a : r.alternatives) {
    if (k == max_alternatives) break;
    if (!seen.insert(canonical_hash(a.graph)).second) continue;
    out.push_back({&a.graph, {"alternative " + std::to_string(++k), a.cost_ms, {}, ""}, &a});
  }
  return out;
}

int64_t count_precomputed(const Graph& g) {
  std::vector<bool> fixed = weight_only_nodes(g);
  int64_t count = 0;
  for (NodeId id = 0; id < g.num_nodes(); ++id) count += fixed[id] && g.node(id).num_inputs > 0;
  return count;
}

void take_input(const Graph& input, OptimizeResult& r) {
  r.graph = input;
  r.cost_after_ms = r.cost_before_ms;
  r.rule_sequence.clear();
  r.rules_applied.clear();
  r.folded_operators = 0;
  r.precomputed_operators = count_precomputed(input);
}

void take_alternative(const AlternativeGraph& a, OptimizeResult& r) {
  r.graph = a.graph;
  r.cost_after_ms = a.cost_ms;
  r.rule_sequence = a.rule_sequence;
  r.rules_applied = a.rules_applied;
  r.folded_operators = a.folded_operators;
  r.precomputed_operators = count_precomputed(a.graph);
}

std::string ms(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", x);
  return buf;
}

}  // namespace

std::optional<int> end_to_end_threads(const std::string& cost_spec) {
  if (cost_spec == "cpu" || cost_spec.starts_with("cpu@")) return 0;
  if (cost_spec.starts_with("cpu:")) return std::stoi(cost_spec.substr(4));  // checked by make_cost_model
  if (!cost_spec.starts_with("table:")) return std::nullopt;
  const CostTableInfo info = CostTable::read(cost_spec.substr(6)).info;
  // This CPU and oneDNN; its thread count is the one to time with (another
  // than every core is said on stderr when the table is read).
  CostTableInfo same_threads = info;
  same_threads.threads = cpu_cores();  // as the provenance check compares
  if (info.device_kind != "cpu" || !table_provenance_mismatch(same_threads).empty() || info.threads < 1 ||
      info.threads > cpu_cores())
    return std::nullopt;
  return info.threads;
}

EndToEndDecision accept_end_to_end(const Graph& input, OptimizeResult& result, const SearchOptions& search,
                                   const EndToEndOptions& options) {
  EndToEndDecision d{options.rounds, options.repeats, options.threads, {}, 0, ""};
  std::vector<Contender> list = contenders(input, result, options.max_alternatives);
  if (list.size() == 1) {
    d.timed.push_back(list[0].timed);
    d.reason = "nothing to time: the search found no graph other than the input";
    return d;
  }
  ExecOptions exec;
  exec.threads = options.threads;
  exec.repeats = options.repeats;
  exec.seed = search.seed;
  std::unique_ptr<Executor> cpu = make_executor(DeviceKind::cpu, exec);
  d.threads = cpu->table_info().threads;
  std::vector<Graph> graphs;
  for (const Contender& c : list) {
    check_evaluation_memory(*c.graph, sizeof(float));  // refused before the executor allocates
    graphs.push_back(*c.graph);
  }
  std::vector<std::vector<double>> medians = cpu->time_interleaved(graphs, options.rounds);
  for (size_t k = 0; k < list.size(); ++k) list[k].timed.timing = timing_spread(medians[k]);

  // Faster than the input beyond the noise and in every round, fastest first.
  // The rounds pair the graphs in time, so load that comes and goes hits both
  // sides of a round alike; a median alone let a load spike during the input's
  // turns pass a graph that ran 2x slower when timed again (sru, load 4).
  const TimingSpread& base = list[0].timed.timing;
  std::vector<size_t> faster;
  for (size_t k = 1; k < list.size(); ++k) {
    const TimingSpread& t = list[k].timed.timing;
    for (size_t r = 0; r < medians[k].size(); ++r)
      list[k].timed.rounds_faster += medians[k][r] < medians[0][r];
    const bool every_round = list[k].timed.rounds_faster == int(medians[k].size());
    if (every_round && base.median_ms - t.median_ms > std::max(base.iqr_ms(), t.iqr_ms()))
      faster.push_back(k);
  }
  std::sort(faster.begin(), faster.end(), [&](size_t a, size_t b) {
    return list[a].timed.timing.median_ms < list[b].timed.timing.median_ms;
  });
  for (size_t k : faster) {
    Contender& c = list[k];
    if (c.alternative) {  // the search's best passed the check already
      NumericalCheck check = search::numerical_check(input, *c.graph, search.seed, search.check_flops_limit);
      c.timed.check = check.passed
                          ? "passed"
                          : "failed (max relative error " + std::to_string(check.max_relative_error) + ")";
      if (!check.passed) continue;
      result.check = check;
    }
    d.chosen = int(k);
    break;
  }
  for (const Contender& c : list) d.timed.push_back(c.timed);
  const TimedGraph& chosen = d.timed[size_t(d.chosen)];
  if (d.chosen == 0) {
    d.reason = faster.empty() ? "no graph ran faster than the input in every round and beyond the spread of "
                                "the timings: the input graph is the result, unchanged"
                              : "no faster graph passed the numerical check: the input graph is the result, "
                                "unchanged";
    take_input(input, result);
  } else {
    d.reason = chosen.name + " ran fastest: " + ms(chosen.timing.median_ms) + " ms against the input's " +
               ms(base.median_ms) + " ms";
    if (list[size_t(d.chosen)].alternative) take_alternative(*list[size_t(d.chosen)].alternative, result);
  }
  result.alternatives.clear();
  return d;
}

nlohmann::ordered_json end_to_end_json(const EndToEndDecision& d) {
  nlohmann::ordered_json graphs = nlohmann::ordered_json::array();
  for (const TimedGraph& t : d.timed)
    graphs.push_back({{"name", t.name},
                      {"cost_ms", t.cost_ms},
                      {"median_ms", t.timing.median_ms},
                      {"iqr_ms", t.timing.iqr_ms()},
                      {"min_ms", t.timing.min_ms},
                      {"max_ms", t.timing.max_ms},
                      {"relative_spread", t.timing.relative()},
                      {"rounds_faster", t.rounds_faster},
                      {"check", t.check}});
  return {{"rounds", d.rounds},
          {"repeats", d.repeats},
          {"threads", d.threads},
          {"graphs", graphs},
          {"chosen", d.timed.empty() ? "input" : d.timed[size_t(d.chosen)].name},
          {"returned_input", d.chosen == 0},
          {"reason", d.reason}};
}

std::string end_to_end_text(const EndToEndDecision& d) {
  std::string out = "end to end:       " + std::to_string(d.rounds) + " interleaved rounds of " +
                    std::to_string(d.repeats) + " runs, " + std::to_string(d.threads) +
                    " threads (median of round medians, IQR, min-max)\n";
  for (const TimedGraph& t : d.timed) {
    if (t.timing.count == 0) continue;
    out += "  " + t.name + ": " + ms(t.timing.median_ms) + " ms, IQR " + ms(t.timing.iqr_ms()) + " ms, " +
           ms(t.timing.min_ms) + "-" + ms(t.timing.max_ms) + " ms (cost model " + ms(t.cost_ms) + " ms)" +
           (t.name == "input" ? "" : ", faster in " + std::to_string(t.rounds_faster) + " rounds") +
           (t.check.empty() ? "" : ", check " + t.check) + "\n";
  }
  return out + "decision:         " + d.reason + "\n";
}

int end_to_end_rounds(int rounds_flag, const std::optional<int>& cpu_threads, const std::string& cost_spec) {
  if (rounds_flag > 0 && !cpu_threads)
    throw Error("--e2e-rounds: the cost model " + cost_spec +
                " does not measure this CPU (use --cost cpu, cpu:THREADS or a table: measured here)");
  if (!cpu_threads) return 0;
  return rounds_flag < 0 ? EndToEndOptions{}.rounds : rounds_flag;
}

}  // namespace superopt
