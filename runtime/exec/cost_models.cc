// The choice of cost model from its spec.
#include "runtime/exec/cost_models.h"

#include <iostream>
#include <string>

#include "runtime/core/error.h"
#include "runtime/cost/analytic_cost.h"
#include "runtime/cost/cost_table.h"
#include "runtime/cost/table_cost.h"
#include "runtime/exec/cuda/gpu_runtime.h"
#include "runtime/exec/executor.h"

namespace superopt {
namespace {

// The live model keeps its executor (the CPU one holds the thread count).
class LiveCostModel : public CostModel {
 public:
  explicit LiveCostModel(std::unique_ptr<Executor> executor)
      : executor_(std::move(executor)), model_(executor_->cost_model()) {}
  // Only a table measured on this device kind, CPU, thread count and library.
  void preload(const std::string& path) {
    CostTable table = CostTable::read(path);
    const CostTableInfo here = executor_->table_info();
    if (table.info.device_kind != here.device_kind || table.info.device != here.device ||
        table.info.threads != here.threads || table.info.onednn != here.onednn)
      throw Error(path + " was measured with " + std::to_string(table.info.threads) + " threads on '" +
                  table.info.device + "' (oneDNN " + table.info.onednn + "), not as this model measures");
    model_->preload(table);
  }
  double node_cost_ms(const Graph& g, NodeId id) override { return model_->node_cost_ms(g, id); }
  double node_spread_ms(const Graph& g, NodeId id) override { return model_->node_spread_ms(g, id); }
  double graph_sum_ms(const Graph& g, const std::vector<bool>& weight_only) override {
    return model_->graph_sum_ms(g, weight_only);
  }
  bool measures() const override { return model_->measures(); }
  bool costs_whole_graphs() const override { return model_->costs_whole_graphs(); }
  double operators_sum_ms(const Graph& g, const std::vector<bool>& weight_only) override {
    return model_->operators_sum_ms(g, weight_only);
  }
  std::vector<CostUnit> graph_units(const Graph& g, const std::vector<bool>& weight_only) override {
    return model_->graph_units(g, weight_only);
  }
  std::string name() const override { return model_->name(); }

 private:
  std::unique_ptr<Executor> executor_;
  std::unique_ptr<MeasuredCostModel> model_;
};

int parse_threads(const std::string& text) {
  size_t used = 0;
  int threads = -1;
  try {
    threads = std::stoi(text, &used);
  } catch (const std::exception&) {
  }
  if (used != text.size() || threads < 1)
    throw Error("cost model cpu:" + text + ": threads must be a positive integer");
  return threads;
}

std::unique_ptr<CostModel> make_table_model(const std::string& spec, const std::string& path) {
  std::unique_ptr<CostModel> model = make_table_cost_model(spec, path);
  const std::string mismatch = table_provenance_mismatch(CostTable::read(path).info);
  if (!mismatch.empty())
    std::cerr << "warning: cost table " << path << " was " << mismatch << "; its costs may not hold here\n";
  return model;
}

}  // namespace

std::unique_ptr<CostModel> make_cost_model(std::string_view spec_view) {
  std::string spec(spec_view);
  auto rest = [&](std::string_view prefix) { return spec.substr(prefix.size()); };
  try {
    if (spec.starts_with("analytic:"))
      return std::make_unique<AnalyticCostModel>(spec, find_device_profile(rest("analytic:")));
    if (spec.starts_with("table:")) return make_table_model(spec, rest("table:"));
  } catch (const Error& e) {
    throw Error("cost model " + spec + ": " + e.what());
  }
  ExecOptions options;
  if (spec == "gpu") {
    require_gpu("cost model gpu");
    return std::make_unique<LiveCostModel>(make_executor(DeviceKind::cuda, options));
  }
  if (spec == "cpu" || spec.starts_with("cpu:") || spec.starts_with("cpu@")) {
    // cpu[:THREADS][@TABLE]
    const size_t at = spec.find('@');
    const std::string head = spec.substr(0, at);
    if (head != "cpu") options.threads = parse_threads(head.substr(4));
    try {
      auto model = std::make_unique<LiveCostModel>(make_executor(DeviceKind::cpu, options));
      if (at != std::string::npos) model->preload(spec.substr(at + 1));
      return model;
    } catch (const Error& e) {
      throw Error("cost model " + spec + ": " + e.what());
    }
  }
  throw Error("unknown cost model '" + spec +
              "' (expected analytic:DEVICE, table:FILE, cpu[:THREADS][@TABLE] or gpu)");
}

}  // namespace superopt
