// The GPU runtime as the rest of superopt sees it: whole-graph latency, operator
// measurement into cost tables, and the "gpu" cost model. Plain C++ without CUDA
// types; without CUDA support built in, every entry point throws
// "no CUDA device (this superopt was built without CUDA)".
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "runtime/core/error.h"
#include "runtime/core/graph.h"
#include "runtime/cost/cost_model.h"
#include "runtime/cost/cost_table.h"
#include "runtime/exec/cuda/cuda_device.h"

namespace superopt {

struct GpuOptions {
  int warmup = 10;
  int repeats = 100;
  bool allow_tf32 = false;  // FP32 unless asked
  uint64_t seed = 1;        // of the random inputs and weights (as `graph run --seed`)
};

struct GpuRunReport {
  std::string device;
  int launches = 0;  // kernels or library calls per run (views and folded weights excluded)
  double median_ms = 0, p10_ms = 0, p90_ms = 0;
  double p25_ms = 0, p75_ms = 0, min_ms = 0, max_ms = 0;  // the spread of the timed runs
  int repeats = 0;
  // check: relative errors max|gpu - ref| / max|ref| against the CPU reference in double.
  bool checked = false;
  double output_error = 0;  // worst graph output, end to end (errors compound through the graph)
  std::string worst_output;
  double node_error = 0;  // worst operator, on the GPU's own inputs (what the kernels get wrong)
  std::string worst_node;
  double weight_error = 0;  // worst folded weight as uploaded
  std::string worst_weight;
  // op_sum: the sum over every operator node of its cost measured alone (as `measure`
  // does; equal signatures are measured once), to compare with median_ms.
  bool op_summed = false;
  double op_sum_ms = 0;
};

// What CUDA, cuDNN and cuBLAS report (`version`), or why the GPU backend
// could not be loaded (no_device_reason).
cuda::CudaInfo gpu_cuda_info();

// Why no GPU can be used ("" when device 0 is usable).
std::string gpu_unavailable_reason();

// Throws Error("<what>: no CUDA device (<reason>)") unless a device is usable.
void require_gpu(std::string_view what);

// Device, driver, cuDNN and cuBLAS versions as a cost table records them.
CostTableInfo gpu_table_info();

// Runs g on device 0: warm-up, then options.repeats timed whole-graph runs.
GpuRunReport gpu_run_graph(const Graph& g, const GpuOptions& options, bool check, bool op_sum);

// Measures every distinct op_signature of the graphs' operators that `table`
// lacks (weight-only nodes and views are skipped) and inserts it; calls
// on_measured after each. Returns how many were measured.
int gpu_measure(std::span<const Graph> graphs, CostTable& table, const GpuOptions& options,
                const std::function<void(const std::string& signature, const CostEntry&)>& on_measured);

// The "gpu" cost model: each new signature is measured on the fly (as gpu_measure
// does, with fewer repeats) and cached; measured() is the cache as a cost table.
class GpuCostModel : public CostModel {
 public:
  virtual const CostTable& measured() const = 0;
};
std::unique_ptr<GpuCostModel> make_gpu_cost_model(const GpuOptions& options);

#ifndef SUPEROPT_HAVE_CUDA
inline std::string gpu_unavailable_reason() {
  return "this superopt was built without CUDA";
}
inline void require_gpu(std::string_view what) {
  throw Error(std::string(what) + ": no CUDA device (" + gpu_unavailable_reason() + ")");
}
inline CostTableInfo gpu_table_info() {
  require_gpu("gpu");
  return {};
}
inline GpuRunReport gpu_run_graph(const Graph&, const GpuOptions&, bool, bool) {
  require_gpu("run --gpu");
  return {};
}
inline int gpu_measure(std::span<const Graph>, CostTable&, const GpuOptions&,
                       const std::function<void(const std::string&, const CostEntry&)>&) {
  require_gpu("measure");
  return 0;
}
inline std::unique_ptr<GpuCostModel> make_gpu_cost_model(const GpuOptions&) {
  require_gpu("cost model gpu");
  return nullptr;
}
#endif

}  // namespace superopt
