// The choice of cost model from its spec.
#include "runtime/exec/cost_models.h"

#include <string>

#include "runtime/core/error.h"
#include "runtime/cost/analytic_cost.h"
#include "runtime/cost/table_cost.h"
#include "runtime/exec/cuda/gpu_runtime.h"

namespace superopt {
namespace {

// Measures each new signature on device 0 with fewer repeats than `measure`:
// the optimizer asks for many signatures and needs them only to rank graphs.
std::unique_ptr<CostModel> make_gpu_model() {
  GpuOptions options;
  options.warmup = 3;
  options.repeats = 20;
  return make_gpu_cost_model(options);
}

}  // namespace

std::unique_ptr<CostModel> make_cost_model(std::string_view spec_view) {
  std::string spec(spec_view);
  auto rest = [&](std::string_view prefix) { return spec.substr(prefix.size()); };
  try {
    if (spec.starts_with("analytic:"))
      return std::make_unique<AnalyticCostModel>(spec, find_device_profile(rest("analytic:")));
    if (spec.starts_with("table:")) return make_table_cost_model(spec, rest("table:"));
  } catch (const Error& e) {
    throw Error("cost model " + spec + ": " + e.what());
  }
  if (spec == "gpu") return make_gpu_model();
  throw Error("unknown cost model '" + spec + "' (expected analytic:DEVICE, table:FILE or gpu)");
}

}  // namespace superopt
