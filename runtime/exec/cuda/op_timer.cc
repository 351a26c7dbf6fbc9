// The single-operator timer behind `superopt measure` and the gpu cost model.
#include "runtime/exec/cuda/op_timer.h"

#include <algorithm>
#include <cmath>

#include "runtime/exec/cuda/gpu_kernels.h"
#include "runtime/exec/cuda/gpu_node.h"

namespace superopt::cuda {
namespace {

// Rotating sets spread over about this many bytes: twice an H100's 50 MB L2.
constexpr int64_t kRotationBytes = int64_t{100} << 20;
constexpr int kMaxSets = 8;

struct BufferSet {
  std::vector<DeviceBuffer> inputs, outputs;
  std::vector<const float*> in_ptrs;
  std::vector<float*> out_ptrs;
};

}  // namespace

double median_ms(std::vector<double> times) {
  if (times.empty()) return 0;
  std::sort(times.begin(), times.end());
  size_t mid = times.size() / 2;
  return times.size() % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
}

double quantile_ms(std::vector<double> times, double q) {
  if (times.empty()) return 0;
  std::sort(times.begin(), times.end());
  size_t rank = static_cast<size_t>(std::ceil(q * double(times.size())));
  return times[std::clamp<size_t>(rank, 1, times.size()) - 1];
}

CostEntry measure_node(GpuContext& ctx, const Graph& g, NodeId id, const std::string& signature, int warmup,
                       int repeats) {
  const Node& n = g.node(id);
  int64_t set_elements = 0;
  for (TensorRef t : n.inputs()) set_elements += g.shape(t).num_elements();
  for (int port = 0; port < n.num_outputs(); ++port) set_elements += n.output(port).shape.num_elements();
  const int sets = static_cast<int>(
      std::clamp<int64_t>(kRotationBytes / std::max<int64_t>(set_elements * 4, 1), 1, kMaxSets));
  std::vector<BufferSet> buffers(sets);
  uint64_t seed = 1;
  for (BufferSet& b : buffers) {
    for (TensorRef t : n.inputs()) {
      const int64_t count = g.shape(t).num_elements();
      b.inputs.emplace_back(count, signature + ": input");
      launch_fill_uniform(ctx.stream(), b.inputs.back().data(), count, seed++, 0.5f, 1.5f);
      b.in_ptrs.push_back(b.inputs.back().data());
    }
    for (int port = 0; port < n.num_outputs(); ++port) {
      b.outputs.emplace_back(n.output(port).shape.num_elements(), signature + ": output");
      b.out_ptrs.push_back(b.outputs.back().data());
    }
  }
  const bool col_major = signature.ends_with("|col");
  CostEntry entry;
  // At least one untimed run: the first call of a convolution searches its algorithm.
  std::vector<double> times = ctx.time_ms(
      std::max(warmup, 1), repeats,
      [&](int i) {
        const BufferSet& b = buffers[size_t(i % sets)];
        entry.algorithm = launch_node(ctx, g, id, b.in_ptrs, b.out_ptrs, signature, col_major);
      },
      signature);
  entry.cost_ms = median_ms(times);
  entry.spread_ms = quantile_ms(times, 0.75) - quantile_ms(times, 0.25);
  entry.repeats = repeats;
  return entry;
}

}  // namespace superopt::cuda
