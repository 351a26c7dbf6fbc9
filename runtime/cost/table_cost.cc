// Measured costs by signature, falling back to the table device's roofline.
#include "runtime/cost/table_cost.h"

#include "runtime/core/error.h"
#include "runtime/core/graph_analysis.h"
#include "runtime/cost/analytic_cost.h"
#include "runtime/cost/cost_spread.h"
#include "runtime/cost/cost_table.h"
#include "runtime/cost/fusion.h"

namespace superopt {
namespace {

// Looks each operator up in a measured table; signatures the table lacks are
// costed by the analytic model of the table's analytic_profile and counted.
class TableCostModel : public CostModel {
 public:
  TableCostModel(std::string name, CostTable table, DeviceProfile fallback)
      : name_(std::move(name)), table_(std::move(table)), fallback_("analytic", std::move(fallback)) {}

  double node_cost_ms(const Graph& g, NodeId id) override {
    if (runs_no_kernel(g, id)) return 0;
    if (const CostEntry* entry = table_.lookup(op_signature(g, id))) return entry->cost_ms;
    ++fallbacks_;
    return fallback_.node_cost_ms(g, id);
  }
  // Signatures the table lacks come from the roofline: no measurement, no noise.
  double node_spread_ms(const Graph& g, NodeId id) override {
    if (runs_no_kernel(g, id)) return 0;
    const CostEntry* entry = table_.lookup(op_signature(g, id));
    return entry ? entry_spread_ms(*entry) : 0;
  }
  // A CPU table's fused groups (measured by `measure` under fused_signature)
  // cost what the executor runs; a group the table lacks, node by node.
  double graph_sum_ms(const Graph& g, const std::vector<bool>& weight_only) override {
    if (table_.info.device_kind != "cpu") return CostModel::graph_sum_ms(g, weight_only);
    return fused_sum_ms(g, weight_only, *this,
                        [&](const Graph& graph, const Fusion& f) -> std::optional<double> {
                          const CostEntry* entry = table_.lookup(fused_signature(graph, f));
                          return entry ? std::optional<double>(entry->cost_ms) : std::nullopt;
                        });
  }
  std::vector<CostUnit> graph_units(const Graph& g, const std::vector<bool>& weight_only) override {
    if (table_.info.device_kind != "cpu") return CostModel::graph_units(g, weight_only);
    return fused_units(
        g, weight_only, plan_fusions(g, weight_only),
        [&](NodeId id) {  // node_spread_ms without building the signature twice
          CostUnit u{op_signature(g, id), 0};
          if (const CostEntry* entry = table_.lookup(u.signature)) u.spread_ms = entry_spread_ms(*entry);
          return u;
        },
        [&](const Fusion& f) -> std::optional<CostUnit> {
          std::string signature = fused_signature(g, f);
          const CostEntry* entry = table_.lookup(signature);
          if (!entry) return std::nullopt;
          return CostUnit{std::move(signature), entry_spread_ms(*entry)};
        });
  }
  bool measures() const override { return true; }
  bool costs_whole_graphs() const override { return table_.info.device_kind == "cpu"; }
  std::string name() const override { return name_; }
  int64_t fallbacks() const override { return fallbacks_; }
  int64_t memory_limit_bytes() const override { return fallback_.memory_limit_bytes(); }

 private:
  std::string name_;
  CostTable table_;
  AnalyticCostModel fallback_;
  int64_t fallbacks_ = 0;
};

}  // namespace

std::unique_ptr<CostModel> make_table_cost_model(std::string name, const std::string& path) {
  CostTable table = CostTable::read(path);
  DeviceProfile fallback;
  try {
    fallback = find_device_profile(table.info.analytic_profile);
  } catch (const Error& e) {
    throw Error(path + ": analytic_profile: " + e.what());
  }
  return std::make_unique<TableCostModel>(std::move(name), std::move(table), std::move(fallback));
}

}  // namespace superopt
