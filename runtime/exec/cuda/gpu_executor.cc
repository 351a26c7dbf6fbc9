// The GPU graph executor: fold weight-only nodes on the CPU, upload, plan the
// launches once, run them in topological order.
#include "runtime/exec/cuda/gpu_executor.h"

#include "runtime/core/arith.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/graph_analysis.h"
#include "runtime/cost/cost_model.h"
#include "runtime/exec/cuda/gpu_node.h"
#include "runtime/exec/weight_folding.h"

namespace superopt::cuda {
namespace {

std::vector<float> to_float(const std::vector<double>& values) {
  return {values.begin(), values.end()};
}

}  // namespace

float* GpuGraph::allocate(int64_t elements, const std::string& what) {
  buffers_.emplace_back(elements, what);
  return buffers_.back().data();
}

GpuGraph::GpuGraph(GpuContext& ctx, const Graph& g, uint64_t seed) : ctx_(ctx), graph_(g) {
  std::optional<std::vector<NodeId>> order = g.topological_order();
  if (!order) throw Error("graph has a cycle");
  const std::vector<bool> weight_only = weight_only_nodes(g);
  tensors_.assign(g.num_nodes(), {});

  // Weight-only tensors that activation operators or the graph outputs read.
  // The weight-only set and its folding are the ones every executor uses (weight_folding.h).
  const FoldedWeights weights = fold_weights(g, weight_only, seed);
  const std::vector<TensorRef>& folded = weights.tensors;
  const std::vector<Tensor<double>>& values = weights.values;
  const std::vector<size_t> first_equal = first_equal_weights(weights);  // equal weights share one buffer
  for (size_t i = 0; i < folded.size(); ++i) {
    auto& ports = tensors_[folded[i].node];
    ports.resize(g.node(folded[i].node).num_outputs(), nullptr);
    if (first_equal[i] != i) {
      const TensorRef first = folded[first_equal[i]];
      ports[folded[i].port] = tensors_[first.node][first.port];
      continue;
    }
    const std::string what = "weight " + tensor_label(g, folded[i]);
    float* dst = allocate(values[i].size(), what);
    copy_to_device(dst, to_float(values[i].data).data(), values[i].size(), what);
    ports[folded[i].port] = dst;
  }

  RealArith<double> ar;
  SourceValues<RealArith<double>> sources = random_sources(ar, seed);
  for (NodeId id : *order) {
    const Node& n = g.node(id);
    if (weight_only[id]) continue;
    auto& ports = tensors_[id];
    ports.assign(n.num_outputs(), nullptr);
    if (n.op == OpType::input) {
      Tensor<double> v = sources(g, id);
      const std::string what = "input " + tensor_label(g, {id, 0});
      ports[0] = allocate(v.size(), what);
      copy_to_device(ports[0], to_float(v.data).data(), v.size(), what);
      continue;
    }
    std::vector<const float*> inputs;
    for (TensorRef t : n.inputs()) inputs.push_back(tensors_[t.node][t.port]);
    std::array<int64_t, kMaxOutputs> offsets{};
    if (view_offsets(g, id, offsets)) {
      for (int port = 0; port < n.num_outputs(); ++port)
        ports[port] = const_cast<float*>(inputs[0]) + offsets[port];  // a view aliases its input
      continue;
    }
    for (int port = 0; port < n.num_outputs(); ++port)
      ports[port] = allocate(n.output(port).shape.num_elements(), "output of " + tensor_label(g, {id, port}));
    steps_.push_back({id, op_signature(g, id), std::move(inputs), ports});
  }
}

void GpuGraph::run() {
  for (const Step& s : steps_) launch_node(ctx_, graph_, s.id, s.inputs, s.outputs, s.key);
}

Tensor<float> GpuGraph::download(TensorRef t) {
  ctx_.synchronize("graph run");
  const std::vector<float*>& ports = tensors_.at(t.node);
  if (static_cast<size_t>(t.port) >= ports.size() || !ports[t.port])
    throw Error("tensor " + tensor_label(graph_, t) + " is not on the GPU (folded into a weight it feeds)");
  Tensor<float> out(graph_.shape(t), 0.f);
  copy_to_host(out.data.data(), ports[t.port], out.size(), "tensor " + tensor_label(graph_, t));
  return out;
}

std::vector<Tensor<float>> GpuGraph::outputs() {
  std::vector<Tensor<float>> result;
  for (TensorRef t : graph_.outputs()) result.push_back(download(t));
  return result;
}

}  // namespace superopt::cuda
