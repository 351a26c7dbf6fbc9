// The executor factory: the CPU backend (cpu/) and an adapter over the GPU
// runtime's entry points (cuda/gpu_runtime.h), plus the provenance check of
// measured cost tables.
#include "runtime/exec/executor.h"

#include "runtime/core/error.h"
#include "runtime/cost/cost_spread.h"
#include "runtime/exec/cpu/cpu_engine.h"
#include "runtime/exec/cpu/cpu_executor.h"
#include "runtime/exec/cuda/gpu_runtime.h"

namespace superopt {
namespace {

GpuOptions gpu_options(const ExecOptions& o) {
  return GpuOptions{o.warmup, o.repeats, o.allow_tf32, o.seed};
}

RunReport to_report(const GpuRunReport& g) {
  RunReport r;
  r.device = g.device;
  r.launches = g.launches;
  r.median_ms = g.median_ms;
  r.p10_ms = g.p10_ms;
  r.p90_ms = g.p90_ms;
  r.p25_ms = g.p25_ms;
  r.p75_ms = g.p75_ms;
  r.min_ms = g.min_ms;
  r.max_ms = g.max_ms;
  r.repeats = g.repeats;
  r.checked = g.checked;
  r.output_error = g.output_error;
  r.worst_output = g.worst_output;
  r.node_error = g.node_error;
  r.worst_node = g.worst_node;
  r.weight_error = g.weight_error;
  r.worst_weight = g.worst_weight;
  r.op_summed = g.op_summed;
  r.op_sum_ms = g.op_sum_ms;
  return r;
}

// The live gpu model seen as a MeasuredCostModel.
class GpuModelAdapter : public MeasuredCostModel {
 public:
  explicit GpuModelAdapter(std::unique_ptr<GpuCostModel> model) : model_(std::move(model)) {}
  double node_cost_ms(const Graph& g, NodeId id) override { return model_->node_cost_ms(g, id); }
  double node_spread_ms(const Graph& g, NodeId id) override {
    if (node_cost_ms(g, id) == 0) return 0;  // measures the signature if new
    const CostEntry* entry = model_->measured().lookup(op_signature(g, id));
    return entry ? entry_spread_ms(*entry) : 0;
  }
  bool measures() const override { return true; }
  std::string name() const override { return model_->name(); }
  const CostTable& measured() const override { return model_->measured(); }
  void preload(const CostTable&) override { throw Error("cost model gpu: cannot start from a table"); }

 private:
  std::unique_ptr<GpuCostModel> model_;
};

class CudaExecutor : public Executor {
 public:
  explicit CudaExecutor(const ExecOptions& options) : options_(options) { require_gpu("cuda"); }
  DeviceKind kind() const override { return DeviceKind::cuda; }
  CostTableInfo table_info() const override { return gpu_table_info(); }
  RunReport run_graph(const Graph& g, bool check, bool op_sum) override {
    return to_report(gpu_run_graph(g, gpu_options(options_), check, op_sum));
  }
  int measure(std::span<const Graph> graphs, CostTable& table,
              const std::function<void(const std::string&, const CostEntry&)>& on_measured) override {
    return gpu_measure(graphs, table, gpu_options(options_), on_measured);
  }
  std::unique_ptr<MeasuredCostModel> cost_model() override {
    GpuOptions live = gpu_options(options_);
    live.warmup = 3;
    live.repeats = 20;
    return std::make_unique<GpuModelAdapter>(make_gpu_cost_model(live));
  }

 private:
  ExecOptions options_;
};

}  // namespace

DeviceKind parse_device(std::string_view name) {
  if (name == "cpu") return DeviceKind::cpu;
  if (name == "cuda" || name == "gpu") return DeviceKind::cuda;
  throw Error("unknown device '" + std::string(name) + "' (expected cpu or cuda)");
}

std::string_view device_kind_name(DeviceKind kind) {
  return kind == DeviceKind::cpu ? "cpu" : "cuda";
}

std::unique_ptr<Executor> make_executor(DeviceKind kind, const ExecOptions& options) {
  if (kind == DeviceKind::cpu) return make_cpu_executor(options);
  return std::make_unique<CudaExecutor>(options);
}

std::vector<std::vector<double>> interleaved_medians(size_t n, int rounds,
                                                     const std::function<double(size_t)>& time) {
  std::vector<std::vector<double>> medians(n);
  for (int round = 0; round < rounds; ++round)
    for (size_t i = 0; i < n; ++i) {
      const size_t k = interleaved_turn(round, i, n);
      medians[k].push_back(time(k));
    }
  return medians;
}

std::vector<std::vector<double>> Executor::time_interleaved(std::span<const Graph> graphs, int rounds) {
  return interleaved_medians(graphs.size(), rounds,
                             [&](size_t k) { return run_graph(graphs[k], false, false).median_ms; });
}

int cpu_cores() {
  return cpu::available_cores();
}

int checked_threads(int threads, std::string_view command) {
  if (threads < 1 || threads > cpu_cores())
    throw Error(std::string(command) + ": --threads " + std::to_string(threads) +
                " is not between 1 and the " + std::to_string(cpu_cores()) + " cores of this machine");
  return threads;
}

std::string table_provenance_mismatch(const CostTableInfo& table) {
  if (table.device_kind != "cpu") return "";
  const CostTableInfo here = cpu_table_info(cpu::available_cores());
  std::string differs;
  auto note = [&](const std::string& what, const std::string& there, const std::string& mine) {
    if (there == mine) return;
    differs += (differs.empty() ? "" : ", ") + what + " '" + there + "' (here '" + mine + "')";
  };
  note("CPU", table.device, here.device);
  note("threads", std::to_string(table.threads), std::to_string(here.threads));
  note("oneDNN", table.onednn, here.onednn);
  return differs.empty() ? "" : "measured with another " + differs;
}

}  // namespace superopt
