// The single-operator timer behind `measure --device cpu` and the cpu cost model.
#include "runtime/exec/cpu/cpu_op_timer.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>

#include "runtime/core/error.h"
#include "runtime/core/graph_analysis.h"
#include "runtime/exec/cpu/cpu_arrival.h"
#include "runtime/exec/cpu/cpu_engine.h"
#include "runtime/exec/timing_stats.h"

namespace superopt::cpu {
namespace {

// Rotating sets spread over about this many bytes: beyond a server CPU's last-level cache share.
constexpr int64_t kRotationBytes = int64_t{64} << 20;
constexpr int kMaxSets = 8;

struct BufferSet {
  std::vector<dnnl::memory> inputs, outputs;
  std::vector<std::unordered_map<int, dnnl::memory>> args;  // per primitive call
};

// A memory of descriptor `want` holding uniform values in [0.5, 1.5).
dnnl::memory random_memory(const memory::desc& want, std::mt19937& rng) {
  const memory::dims dims = want.dims();
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  dnnl::memory plain(plain_desc(dims), engine());
  std::uniform_real_distribution<float> uniform(0.5f, 1.5f);
  float* p = static_cast<float*>(plain.get_data_handle());
  std::generate(p, p + count, [&] { return uniform(rng); });
  if (plain.get_desc() == want) return plain;
  dnnl::memory result(want, engine());
  dnnl::reorder(plain, result).execute(stream(), plain, result);
  stream().wait();
  return result;
}

BufferSet make_set(const NodeKernel& k, std::mt19937& rng) {
  BufferSet b;
  for (const memory::desc& d : k.inputs) b.inputs.push_back(random_memory(d, rng));
  for (const memory::desc& d : k.outputs) b.outputs.push_back(dnnl::memory(d, engine()));
  for (const PrimitiveCall& call : k.calls) {
    std::unordered_map<int, dnnl::memory> args;
    for (const Binding& bind : call.bindings) {
      dnnl::memory m = bind.output ? b.outputs[size_t(bind.index)] : b.inputs[size_t(bind.index)];
      args[bind.arg] = bind.view ? dnnl::memory(*bind.view, engine(), m.get_data_handle()) : m;
    }
    b.args.push_back(std::move(args));
  }
  return b;
}

int64_t set_bytes(const NodeKernel& k) {
  int64_t bytes = 0;
  for (const auto* list : {&k.inputs, &k.outputs})
    for (const memory::desc& d : *list) bytes += int64_t(d.get_size());
  return bytes;
}

}  // namespace

std::vector<double> time_runs_ms(int warmup, int repeats, const std::function<void(int)>& run) {
  for (int i = 0; i < warmup; ++i) run(i);
  std::vector<double> times;
  times.reserve(size_t(repeats));
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run(warmup + i);
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return times;
}

namespace {

// The kernel of node `id` (or of a fused group led by it) timed over rotating buffer sets.
CostEntry time_kernel(const Graph& g, NodeId id, const NodeKernel& k, int warmup, int repeats) {
  const int sets = int(std::clamp<int64_t>(kRotationBytes / std::max<int64_t>(set_bytes(k), 1), 1, kMaxSets));
  std::mt19937 rng(1);
  std::vector<BufferSet> buffers;
  for (int s = 0; s < sets; ++s) buffers.push_back(make_set(k, rng));
  auto run = [&](int i) {
    BufferSet& b = buffers[size_t(i % sets)];
    if (k.reference) {
      std::vector<const float*> in;
      std::vector<float*> out;
      for (const dnnl::memory& m : b.inputs) in.push_back(static_cast<const float*>(m.get_data_handle()));
      for (const dnnl::memory& m : b.outputs) out.push_back(static_cast<float*>(m.get_data_handle()));
      run_reference(g, id, in, out);
      return;
    }
    for (size_t c = 0; c < k.calls.size(); ++c) k.calls[c].primitive.execute(stream(), b.args[c]);
    stream().wait();
  };
  CostEntry entry;
  const TimingSpread spread = timing_spread(time_runs_ms(std::max(warmup, 1), repeats, run));
  entry.cost_ms = spread.median_ms;
  entry.spread_ms = spread.iqr_ms();
  entry.algorithm = k.algorithm;
  entry.repeats = repeats;
  return entry;
}

}  // namespace

CostEntry measure_node(KernelCache& cache, const Graph& g, NodeId id, const std::vector<bool>& weight_only,
                       int warmup, int repeats) {
  ArrivalFormats arrival(cache, g, weight_only);
  return measure_node(arrival, g, id, warmup, repeats);
}

CostEntry measure_node(ArrivalFormats& arrival, const Graph& g, NodeId id, int warmup, int repeats) {
  const Node& n = g.node(id);
  const std::vector<TensorRef> inputs(n.inputs().begin(), n.inputs().end());
  return time_kernel(g, id, arrival.kernel(id, inputs, nullptr), warmup, repeats);
}

CostEntry measure_fusion(KernelCache& cache, const Graph& g, const Fusion& f,
                         const std::vector<bool>& weight_only, int warmup, int repeats) {
  ArrivalFormats arrival(cache, g, weight_only);
  return measure_fusion(arrival, g, f, warmup, repeats);
}

CostEntry measure_fusion(ArrivalFormats& arrival, const Graph& g, const Fusion& f, int warmup, int repeats) {
  const PostOps post = fused_post_ops(g, f);
  return time_kernel(g, f.producer, arrival.kernel(f.producer, fused_inputs(g, f), &post), warmup, repeats);
}

CostEntry measure_conversion(const Conversion& c, int warmup, int repeats) {
  NodeKernel k;
  k.inputs = {c.from};
  k.outputs = {c.to};
  dnnl::reorder::primitive_desc pd(engine(), c.from, engine(), c.to);
  k.calls.push_back({dnnl::reorder(pd), {{DNNL_ARG_FROM, false, 0, {}}, {DNNL_ARG_TO, true, 0, {}}}});
  k.algorithm = "onednn:reorder:";
  k.algorithm.append(pd.impl_info_str());
  return time_kernel(Graph(), 0, k, warmup, repeats);
}

}  // namespace superopt::cpu
