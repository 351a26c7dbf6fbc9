// The CPU executor: whole-graph timing and checking, operator measurement, and
// the on-the-fly "cpu" cost model, on oneDNN.
#include "runtime/exec/cpu/cpu_executor.h"

#include <algorithm>
#include <memory>

#include "runtime/core/graph_analysis.h"
#include "runtime/cost/cost_spread.h"
#include "runtime/cost/fusion.h"
#include "runtime/exec/cpu/cpu_check.h"
#include "runtime/exec/cpu/cpu_concat.h"
#include "runtime/exec/cpu/cpu_engine.h"
#include "runtime/exec/cpu/cpu_graph.h"
#include "runtime/exec/cpu/cpu_op_timer.h"
#include "runtime/exec/timing_stats.h"

namespace superopt {
namespace {

// Operators that run: not folded with the weights, not a source or a view.
std::vector<NodeId> running_nodes(const Graph& g, const std::vector<bool>& weight_only) {
  std::vector<NodeId> ids;
  for (NodeId id = 0; id < g.num_nodes(); ++id)
    if (!weight_only[id] && !runs_no_kernel(g, id)) ids.push_back(id);
  return ids;
}

class CpuCostModel : public MeasuredCostModel {
 public:
  CpuCostModel(const ExecOptions& options, std::string name) : options_(options), name_(std::move(name)) {
    table_.info = cpu_table_info(cpu::current_threads());
  }
  double node_cost_ms(const Graph& g, NodeId id) override { return node_ms(g, id, nullptr); }
  double node_spread_ms(const Graph& g, NodeId id) override {
    if (node_cost_ms(g, id) == 0) return 0;  // measures the signature if new
    const CostEntry* entry = table_.lookup(op_signature(g, id));
    return entry ? entry_spread_ms(*entry) : 0;
  }
  // What the executor runs: a fused group (fusion.h) costs its one primitive,
  // and every reorder step between operators (cpu_arrival.h) its own entry.
  // One fusion plan and one set of arrival formats serve the whole graph (the
  // search costs thousands of graphs; each used to be planned twice, and every
  // node measured anew re-planned it).
  double graph_sum_ms(const Graph& g, const std::vector<bool>& weight_only) override {
    cpu::ArrivalFormats arrival(cache_, g, weight_only);
    return operators_ms(arrival, g, weight_only) +
           reorders_ms(g, cpu::planned_conversions(arrival, g, weight_only));
  }
  double operators_sum_ms(const Graph& g, const std::vector<bool>& weight_only) override {
    cpu::ArrivalFormats arrival(cache_, g, weight_only);
    return operators_ms(arrival, g, weight_only);
  }
  double operators_ms(cpu::ArrivalFormats& arrival, const Graph& g, const std::vector<bool>& weight_only) {
    return fused_sum_ms(
        g, weight_only, arrival.fusions(),
        [&](NodeId id) {
          if (std::optional<double> ms = in_place_concat_ms(arrival, g, id, weight_only)) return *ms;
          return node_ms(g, id, &arrival);
        },
        [&](const Fusion& f) -> std::optional<double> {
          return cached(fused_signature(g, f), [&] {
            return cpu::measure_fusion(arrival, g, f, options_.warmup, options_.repeats);
          });
        });
  }
  double reorders_ms(const Graph& g, const std::vector<cpu::Conversion>& conversions) {
    double total_ms = 0;
    for (const cpu::Conversion& c : conversions)
      total_ms += cached(cpu::conversion_signature(g, c),
                         [&] { return cpu::measure_conversion(c, options_.warmup, options_.repeats); });
    return total_ms;
  }
  bool costs_whole_graphs() const override { return true; }
  // The entries graph_sum_ms adds (measured first where new): groups, lone nodes, reorders.
  std::vector<CostUnit> graph_units(const Graph& g, const std::vector<bool>& weight_only) override {
    cpu::ArrivalFormats arrival(cache_, g, weight_only);
    const std::vector<cpu::Conversion> conversions = cpu::planned_conversions(arrival, g, weight_only);
    operators_ms(arrival, g, weight_only);  // every entry below measured
    reorders_ms(g, conversions);
    auto unit = [&](std::string signature) {
      const CostEntry* entry = table_.lookup(signature);
      const double spread = entry ? entry_spread_ms(*entry) : 0;  // none: costs 0 (enlarge, merge_groups)
      return CostUnit{std::move(signature), spread};
    };
    std::vector<CostUnit> units = fused_units(
        g, weight_only, arrival.fusions(), [&](NodeId id) { return unit(op_signature(g, id)); },
        [&](const Fusion& f) -> std::optional<CostUnit> { return unit(fused_signature(g, f)); });
    for (const cpu::Conversion& c : conversions) units.push_back(unit(cpu::conversion_signature(g, c)));
    return units;
  }
  bool measures() const override { return true; }
  std::string name() const override { return name_; }
  const CostTable& measured() const override { return table_; }
  void preload(const CostTable& table) override {
    for (const auto& [signature, entry] : table.entries()) table_.insert(signature, entry);
  }

 private:
  // A concat the executor writes in place (cpu_concat.h) runs no primitive: it
  // costs the copies of the inputs whose producers cannot write their slice
  // (the producers' own costs do not change: same implementation). nullopt: not
  // a concat, or one that runs as a concat primitive.
  std::optional<double> in_place_concat_ms(cpu::ArrivalFormats& arrival, const Graph& g, NodeId id,
                                           const std::vector<bool>& weight_only) {
    if (g.node(id).op != OpType::concat) return std::nullopt;
    const std::optional<cpu::ConcatInPlace> plan = cpu::concat_in_place(
        cache_, g, id, weight_only, arrival.fusions(), [&](TensorRef t) { return arrival(t); });
    if (!plan) return std::nullopt;
    double total_ms = 0;
    for (size_t i = 0; i < plan->written.size(); ++i) {
      if (plan->written[i]) continue;
      const TensorRef input = g.node(id).inputs()[i];
      const cpu::Conversion copy{input, arrival(input), plan->parts[i]};
      total_ms += cached(cpu::conversion_signature(g, copy),
                         [&] { return cpu::measure_conversion(copy, options_.warmup, options_.repeats); });
    }
    return total_ms;
  }
  // A node's entry, measured on first sight with the graph's arrival formats
  // (`arrival`, or worked out for this one node when null).
  double node_ms(const Graph& g, NodeId id, cpu::ArrivalFormats* arrival) {
    // enlarge and merge_groups only ever rearrange weights: graph_cost_ms folds them.
    const OpType op = g.node(id).op;
    if (runs_no_kernel(g, id) || op == OpType::enlarge || op == OpType::merge_groups) return 0;
    return cached(op_signature(g, id), [&] {
      return arrival
                 ? cpu::measure_node(*arrival, g, id, options_.warmup, options_.repeats)
                 : cpu::measure_node(cache_, g, id, weight_only_nodes(g), options_.warmup, options_.repeats);
    });
  }
  double cached(const std::string& signature, const std::function<CostEntry()>& measure) {
    if (const CostEntry* entry = table_.lookup(signature)) return entry->cost_ms;
    CostEntry entry = measure();
    table_.insert(signature, entry);
    return entry.cost_ms;
  }

  ExecOptions options_;
  std::string name_;
  cpu::KernelCache cache_;
  CostTable table_;
};

class CpuExecutor : public Executor {
 public:
  explicit CpuExecutor(const ExecOptions& options) : options_(options) {
    threads_ = cpu::set_threads(options.threads);
  }
  DeviceKind kind() const override { return DeviceKind::cpu; }
  CostTableInfo table_info() const override { return cpu_table_info(threads_); }

  RunReport run_graph(const Graph& g, bool check, bool op_sum) override {
    RunReport r;
    std::unique_ptr<cpu::KernelCache> own_cache;  // the chosen count's primitives
    std::unique_ptr<cpu::CpuGraph> chosen =
        options_.choose_threads ? choose_threads(g, own_cache, r.thread_trial) : nullptr;
    if (!chosen) chosen = std::make_unique<cpu::CpuGraph>(cache_, g, options_.seed);
    cpu::CpuGraph& graph = *chosen;
    r.threads = threads_;
    r.device = device_text();
    r.launches = graph.num_launches();
    r.reorders = graph.num_reorders();
    r.fused = graph.num_fused();
    r.concats_in_place = graph.num_concats_in_place();
    std::vector<double> times =
        cpu::time_runs_ms(std::max(options_.warmup, 1), options_.repeats, [&](int) { graph.run(); });
    r.repeats = options_.repeats;
    const TimingSpread spread = timing_spread(times);
    r.median_ms = spread.median_ms;
    r.p10_ms = quantile_ms(times, 0.1);
    r.p90_ms = quantile_ms(times, 0.9);
    r.p25_ms = spread.p25_ms;
    r.p75_ms = spread.p75_ms;
    r.min_ms = spread.min_ms;
    r.max_ms = spread.max_ms;
    if (check) {
      cpu::CpuCheck c = cpu::check_against_reference(g, graph, options_.seed);
      r.checked = true;
      r.node_error = c.node_error;
      r.worst_node = c.worst_node;
      r.nodes_not_judged = c.nodes_beyond_float;
      r.not_judged = c.beyond_float;
      r.weight_error = c.weight_error;
      r.worst_weight = c.worst_weight;
      r.output_error = c.output_error;
      r.worst_output = c.worst_output;
    }
    if (op_sum) {  // as the graph runs: fused groups once, reorders included (the cpu cost model's sum)
      CpuCostModel model(options_, "cpu");
      r.op_sum_ms = model.graph_sum_ms(g, weight_only_nodes(g));
      r.op_summed = true;
    }
    return r;
  }

  // Each graph loaded once (weights folded, primitives made), then the rounds.
  std::vector<std::vector<double>> time_interleaved(std::span<const Graph> graphs, int rounds) override {
    std::vector<std::unique_ptr<cpu::CpuGraph>> loaded;
    for (const Graph& g : graphs) loaded.push_back(std::make_unique<cpu::CpuGraph>(cache_, g, options_.seed));
    return interleaved_medians(loaded.size(), rounds, [&](size_t k) {
      return median_ms(cpu::time_runs_ms(1, options_.repeats, [&](int) { loaded[k]->run(); }));
    });
  }

  int measure(std::span<const Graph> graphs, CostTable& table,
              const std::function<void(const std::string&, const CostEntry&)>& on_measured) override {
    int measured = 0;
    for (const Graph& g : graphs) measured += measure_into(g, table, on_measured);
    return measured;
  }

  std::unique_ptr<MeasuredCostModel> cost_model() override {
    ExecOptions live = options_;
    live.warmup = 3;
    live.repeats = 20;
    return std::make_unique<CpuCostModel>(live, "cpu");
  }

 private:
  // run's default thread count (issue 34): every core helps a large graph and
  // slows a small one, whose many short primitives each wait for the threads
  // to wake (OpenMP's passive waits, which a loaded machine needs: nasrnn 1.5
  // ms at 1 thread, 5.2 at 2 on an idle 2-core VM). Both are built and timed,
  // interleaved, a few runs a round; the faster graph is returned, its count
  // set. Null on one core.
  std::unique_ptr<cpu::CpuGraph> choose_threads(const Graph& g, std::unique_ptr<cpu::KernelCache>& cache_out,
                                                std::vector<ThreadTrial>& trial) {
    const int cores = cpu::available_cores();
    if (cores == 1) return nullptr;
    const std::vector<int> counts{cores, 1};
    std::vector<std::unique_ptr<cpu::KernelCache>> caches;
    std::vector<std::unique_ptr<cpu::CpuGraph>> graphs;
    std::vector<double> first_ms;
    for (int t : counts) {  // primitives are made for the threads current when they are made
      cpu::set_threads(t);
      caches.push_back(std::make_unique<cpu::KernelCache>());
      graphs.push_back(std::make_unique<cpu::CpuGraph>(*caches.back(), g, options_.seed));
      first_ms.push_back(median_ms(cpu::time_runs_ms(1, 1, [&](int) { graphs.back()->run(); })));
    }
    constexpr int kRounds = 3;
    const int runs = *std::max_element(first_ms.begin(), first_ms.end()) > 50 ? 1 : 3;
    const std::vector<std::vector<double>> medians =
        interleaved_medians(counts.size(), kRounds, [&](size_t k) {
          cpu::set_threads(counts[k]);
          return median_ms(cpu::time_runs_ms(0, runs, [&](int) { graphs[k]->run(); }));
        });
    size_t best = 0;
    for (size_t k = 0; k < counts.size(); ++k) {
      trial.push_back({counts[k], median_ms(medians[k])});
      if (trial[k].median_ms < trial[best].median_ms) best = k;
    }
    threads_ = cpu::set_threads(counts[best]);
    cache_out = std::move(caches[best]);
    return std::move(graphs[best]);
  }
  std::string device_text() const {
    return cpu::cpu_model() + ", " + std::to_string(threads_) + " threads, oneDNN " + cpu::onednn_version();
  }
  // Every running node alone, every fused group as one primitive, every reorder step.
  int measure_into(const Graph& g, CostTable& table,
                   const std::function<void(const std::string&, const CostEntry&)>& on_measured) {
    const std::vector<bool> weight_only = weight_only_nodes(g);
    int measured = 0;
    auto add = [&](const std::string& signature, const std::function<CostEntry()>& measure) {
      if (table.lookup(signature)) return;
      CostEntry entry = measure();
      table.insert(signature, entry);
      if (on_measured) on_measured(signature, entry);
      ++measured;
    };
    cpu::ArrivalFormats arrival(cache_, g, weight_only);  // one plan for the whole graph
    for (NodeId id : running_nodes(g, weight_only))
      add(op_signature(g, id),
          [&] { return cpu::measure_node(arrival, g, id, options_.warmup, options_.repeats); });
    for (const Fusion& f : arrival.fusions().groups)
      add(fused_signature(g, f),
          [&] { return cpu::measure_fusion(arrival, g, f, options_.warmup, options_.repeats); });
    for (const cpu::Conversion& c : cpu::planned_conversions(arrival, g, weight_only))
      add(cpu::conversion_signature(g, c),
          [&] { return cpu::measure_conversion(c, options_.warmup, options_.repeats); });
    return measured;
  }

  ExecOptions options_;
  int threads_ = 1;
  cpu::KernelCache cache_;
};

}  // namespace

CostTableInfo cpu_table_info(int threads) {
  CostTableInfo info;
  info.device_kind = "cpu";
  info.device = cpu::cpu_model();
  info.onednn = cpu::onednn_version();
  info.threads = threads;
  info.analytic_profile = "cpu";
  return info;
}

std::unique_ptr<Executor> make_cpu_executor(const ExecOptions& options) {
  return std::make_unique<CpuExecutor>(options);
}

}  // namespace superopt
