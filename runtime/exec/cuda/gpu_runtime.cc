// The GPU runtime's entry points (built only with CUDA, into
// libsuperopt_gpu.so): whole-graph timing and checking, operator measurement,
// and the on-the-fly "gpu" cost model. superopt reaches them through the
// backend table (gpu_backend.h), which ../gpu_loader.cc loads on first use.
#include "runtime/exec/cuda/gpu_backend.h"

#include "runtime/core/arith.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/graph_analysis.h"
#include "runtime/exec/cuda/cuda_device.h"
#include "runtime/exec/cuda/gpu_check.h"
#include "runtime/exec/cuda/gpu_executor.h"
#include "runtime/exec/cuda/op_timer.h"

namespace superopt::cuda_backend {
namespace {

// "13.0" from 13000; "9.19.0" from 91900 (cuDNN 9 encodes major*10000 + minor*100 + patch).
std::string cuda_version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}
std::string triple_text(size_t v) {
  return std::to_string(v / 10000) + "." + std::to_string(v % 10000 / 100) + "." + std::to_string(v % 100);
}

// Operators that run on the GPU: not folded with the weights, not a source or a view.
std::vector<NodeId> measured_nodes(const Graph& g) {
  std::vector<bool> weight_only = weight_only_nodes(g);
  std::vector<NodeId> ids;
  for (NodeId id = 0; id < g.num_nodes(); ++id)
    if (!weight_only[id] && !runs_no_kernel(g, id)) ids.push_back(id);
  return ids;
}

void check_outputs(const Graph& g, cuda::GpuGraph& gpu, uint64_t seed, GpuRunReport& report) {
  std::vector<Tensor<float>> got = gpu.outputs();
  RealArith<double> ar;
  std::vector<Tensor<double>> want = evaluate(g, ar, random_sources(ar, seed));
  report.checked = true;
  for (size_t i = 0; i < want.size(); ++i) {
    double e = relative_error(got[i], want[i]);
    if (i == 0 || e > report.output_error) {
      report.output_error = e;
      report.worst_output = tensor_label(g, g.outputs()[i]);
    }
  }
  cuda::NodeCheck nodes = cuda::check_each_node(g, gpu, seed);
  report.node_error = nodes.worst_node_error;
  report.worst_node = nodes.worst_node;
  report.weight_error = nodes.worst_weight_error;
  report.worst_weight = nodes.worst_weight;
}

class GpuCostModelImpl : public GpuCostModel {
 public:
  explicit GpuCostModelImpl(const GpuOptions& options) : options_(options), ctx_(options.allow_tf32) {
    table_.info = gpu_table_info();
  }
  double node_cost_ms(const Graph& g, NodeId id) override {
    // enlarge only ever pads weights: graph_cost_ms folds it, and it has no GPU kernel.
    if (runs_no_kernel(g, id) || g.node(id).op == OpType::enlarge) return 0;
    std::string signature = op_signature(g, id);
    if (const CostEntry* entry = table_.lookup(signature)) return entry->cost_ms;
    CostEntry entry = cuda::measure_node(ctx_, g, id, signature, options_.warmup, options_.repeats);
    table_.insert(signature, entry);
    return entry.cost_ms;
  }
  std::string name() const override { return "gpu"; }
  const CostTable& measured() const override { return table_; }

 private:
  GpuOptions options_;
  cuda::GpuContext ctx_;
  CostTable table_;
};

}  // namespace

CostTableInfo gpu_table_info() {
  cuda::CudaInfo info = cuda::query();
  CostTableInfo t;
  t.device = info.devices.empty() ? "" : info.devices[0].name;
  t.driver = cuda_version_text(info.driver_version);
  t.cudnn = triple_text(info.cudnn_version);
  t.cublas = triple_text(size_t(info.cublas_version));
  return t;
}

GpuRunReport gpu_run_graph(const Graph& g, const GpuOptions& options, bool check, bool op_sum) {
  cuda::GpuContext ctx(options.allow_tf32);
  cuda::GpuGraph gpu(ctx, g, options.seed);
  GpuRunReport report;
  report.device = gpu_table_info().device;
  report.launches = gpu.num_launches();
  std::vector<double> times = ctx.time_ms(
      std::max(options.warmup, 1), options.repeats, [&](int) { gpu.run(); }, "run");
  report.repeats = options.repeats;
  report.median_ms = cuda::median_ms(times);
  report.p10_ms = cuda::quantile_ms(times, 0.1);
  report.p90_ms = cuda::quantile_ms(times, 0.9);
  report.p25_ms = cuda::quantile_ms(times, 0.25);
  report.p75_ms = cuda::quantile_ms(times, 0.75);
  report.min_ms = cuda::quantile_ms(times, 0);
  report.max_ms = cuda::quantile_ms(times, 1);
  if (check) check_outputs(g, gpu, options.seed, report);
  if (op_sum) {
    CostTable costs;
    for (NodeId id : measured_nodes(g)) {
      std::string signature = op_signature(g, id);
      const CostEntry* entry = costs.lookup(signature);
      if (!entry) {
        costs.insert(signature, cuda::measure_node(ctx, g, id, signature, options.warmup, options.repeats));
        entry = costs.lookup(signature);
      }
      report.op_sum_ms += entry->cost_ms;
    }
    report.op_summed = true;
  }
  return report;
}

int gpu_measure(std::span<const Graph> graphs, CostTable& table, const GpuOptions& options,
                const std::function<void(const std::string&, const CostEntry&)>& on_measured) {
  cuda::GpuContext ctx(options.allow_tf32);
  int measured = 0;
  for (const Graph& g : graphs)
    for (NodeId id : measured_nodes(g)) {
      std::string signature = op_signature(g, id);
      if (table.lookup(signature)) continue;
      CostEntry entry = cuda::measure_node(ctx, g, id, signature, options.warmup, options.repeats);
      table.insert(signature, entry);
      on_measured(signature, entry);
      ++measured;
    }
  return measured;
}

std::unique_ptr<GpuCostModel> make_gpu_cost_model(const GpuOptions& options) {
  return std::make_unique<GpuCostModelImpl>(options);
}

}  // namespace superopt::cuda_backend
