// Operator signatures, graph costs with the memory limit, and the choice of
// cost model from its spec ("analytic:h100", "table:FILE", "gpu").
#include "runtime/cost_model.h"

#include <algorithm>

#include "runtime/analytic_cost.h"
#include "runtime/cost_table.h"
#include "runtime/error.h"

#include "runtime/cuda/gpu_runtime.h"

namespace superopt {
namespace {

// Looks each operator up in a measured table; signatures the table lacks are
// costed by the analytic model of the table's analytic_profile and counted.
class TableCostModel : public CostModel {
 public:
  TableCostModel(std::string name, CostTable table, DeviceProfile fallback)
      : name_(std::move(name)), table_(std::move(table)), fallback_("analytic", std::move(fallback)) {}

  double node_cost_ms(const Graph& g, NodeId id) override {
    if (is_free_operator(g, id)) return 0;
    if (const CostEntry* entry = table_.lookup(op_signature(g, id))) return entry->cost_ms;
    ++fallbacks_;
    return fallback_.node_cost_ms(g, id);
  }
  std::string name() const override { return name_; }
  int64_t fallbacks() const override { return fallbacks_; }
  int64_t memory_limit_bytes() const override { return fallback_.memory_limit_bytes(); }

 private:
  std::string name_;
  CostTable table_;
  AnalyticCostModel fallback_;
  int64_t fallbacks_ = 0;
};

std::unique_ptr<CostModel> make_table_model(const std::string& spec, const std::string& path) {
  CostTable table = CostTable::read(path);
  DeviceProfile fallback;
  try {
    fallback = find_device_profile(table.info.analytic_profile);
  } catch (const Error& e) {
    throw Error(path + ": analytic_profile: " + e.what());
  }
  return std::make_unique<TableCostModel>(spec, std::move(table), std::move(fallback));
}

// Measures each new signature on device 0 with fewer repeats than `measure`:
// the optimizer asks for many signatures and needs them only to rank graphs.
std::unique_ptr<CostModel> make_gpu_model() {
  GpuOptions options;
  options.warmup = 3;
  options.repeats = 20;
  return make_gpu_cost_model(options);
}

}  // namespace

std::string op_signature(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  std::string s(op_name(n.op));
  s.append("|").append(params_str(n.op, n.params)).append("|");
  for (size_t i = 0; i < n.inputs().size(); ++i) {
    if (i) s += ',';
    s += g.shape(n.inputs()[i]).str();
  }
  return s + "|row";
}

std::vector<bool> weight_only_nodes(const Graph& g) {
  std::optional<std::vector<NodeId>> order = g.topological_order();
  if (!order) throw Error("graph has a cycle");
  std::vector<bool> weight_only(g.num_nodes(), false);
  for (NodeId id : *order) {
    const Node& n = g.node(id);
    if (n.op == OpType::weight || is_constant(n.op)) {
      weight_only[id] = true;
    } else if (n.num_inputs > 0) {
      weight_only[id] =
          std::all_of(n.inputs().begin(), n.inputs().end(), [&](TensorRef t) { return weight_only[t.node]; });
    }
  }
  return weight_only;
}

int64_t peak_activation_bytes(const Graph& g) {
  std::optional<std::vector<NodeId>> order = g.topological_order();
  if (!order) throw Error("graph has a cycle");
  std::vector<bool> weight_only = weight_only_nodes(g);
  const int n = g.num_nodes();
  std::vector<int> position(n), last_use(n, -1);
  for (int i = 0; i < n; ++i) position[(*order)[i]] = i;
  for (NodeId id = 0; id < n; ++id)
    for (TensorRef t : g.node(id).inputs()) last_use[t.node] = std::max(last_use[t.node], position[id]);
  for (TensorRef t : g.outputs()) last_use[t.node] = n;  // kept to the end
  std::vector<std::vector<NodeId>> freed_after(n);
  for (NodeId id = 0; id < n; ++id)
    if (!weight_only[id] && last_use[id] < n) freed_after[std::max(last_use[id], position[id])].push_back(id);
  auto bytes = [&](NodeId id) {
    int64_t b = 0;
    for (int port = 0; port < g.node(id).num_outputs(); ++port)
      b += g.shape({id, port}).num_elements() * kBytesPerElement;
    return b;
  };
  int64_t live = 0, peak = 0;
  for (int i = 0; i < n; ++i) {
    NodeId id = (*order)[i];
    if (!weight_only[id]) live += bytes(id);
    peak = std::max(peak, live);
    for (NodeId done : freed_after[i]) live -= bytes(done);
  }
  return peak;
}

double graph_cost_ms(const Graph& g, CostModel& model) {
  if (model.memory_limit_bytes() < std::numeric_limits<int64_t>::max() &&
      peak_activation_bytes(g) > model.memory_limit_bytes())
    return std::numeric_limits<double>::infinity();
  std::vector<bool> weight_only = weight_only_nodes(g);
  double total_ms = 0;
  for (NodeId id = 0; id < g.num_nodes(); ++id)
    if (!weight_only[id]) total_ms += model.node_cost_ms(g, id);
  return total_ms;
}

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
  if (spec == "gpu") return make_gpu_model();
  throw Error("unknown cost model '" + spec + "' (expected analytic:DEVICE, table:FILE or gpu)");
}

}  // namespace superopt
