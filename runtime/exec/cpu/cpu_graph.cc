// The CPU graph executor: fold weight-only nodes on the CPU reference, prepare
// weights in the primitives' formats once, plan primitives and reorders once,
// run them in topological order.
#include "runtime/exec/cpu/cpu_graph.h"

#include <algorithm>
#include <cstring>

#include "runtime/core/arith.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/graph_analysis.h"
#include "runtime/exec/cpu/cpu_arrival.h"
#include "runtime/exec/cpu/cpu_engine.h"
#include "runtime/exec/weight_folding.h"

namespace superopt::cpu {
namespace {

float* data_of(const dnnl::memory& m) {
  return static_cast<float*>(m.get_data_handle());
}

void fill(const dnnl::memory& m, const std::vector<double>& values) {
  std::transform(values.begin(), values.end(), data_of(m), [](double v) { return static_cast<float>(v); });
}

}  // namespace

dnnl::memory CpuGraph::allocate(const memory::desc& d) {
  return dnnl::memory(d, engine());
}

dnnl::memory CpuGraph::in_format(TensorRef t, const memory::desc& want, bool weight) {
  dnnl::memory have = tensor(t);
  const memory::desc have_desc = have.get_desc();
  if (have_desc == want) return have;
  size_t format = 0;
  while (format < converted_formats_.size() && !(converted_formats_[format] == want)) ++format;
  if (format == converted_formats_.size()) converted_formats_.push_back(want);
  std::pair<int, int> tensor_key{int(t.node), int(t.port)};
  if (auto twin = twin_.find(tensor_key); twin != twin_.end()) tensor_key = twin->second;
  const auto key = std::make_pair(tensor_key, format);
  if (auto it = converted_.find(key); it != converted_.end()) return it->second;

  dnnl::memory source = have;
  if (have_desc.dims() != want.dims()) {
    // Another rank (a grouped kernel as 5-D goihw, a broadcast operand): the row-major tensor re-read.
    dnnl::memory plain = in_format(t, plain_desc(graph_.shape(t)), weight);
    source = dnnl::memory(plain_desc(want.dims()), engine(), plain.get_data_handle());
  }
  dnnl::memory result = source;
  if (!(source.get_desc() == want)) {
    result = allocate(want);
    dnnl::reorder reorder(source, result);
    if (weight) {
      reorder.execute(stream(), source, result);  // prepared once, outside the timed runs
      stream().wait();
    } else {
      steps_.push_back({reorder, {{DNNL_ARG_FROM, source}, {DNNL_ARG_TO, result}}, {}});
      ++reorders_;
    }
  }
  converted_[key] = result;
  return result;
}

// reshape and contiguous splits alias their (row-major) input.
void CpuGraph::plan_views(NodeId id) {
  const Node& n = graph_.node(id);
  const TensorRef in = n.inputs()[0];
  dnnl::memory source = in_format(in, plain_desc(graph_.shape(in)), false);
  int64_t offset = 0;
  for (int port = 0; port < n.num_outputs(); ++port) {
    const Shape& shape = n.output(port).shape;
    tensors_[id][port] = dnnl::memory(plain_desc(shape), engine(), data_of(source) + offset);
    offset += shape.num_elements();
  }
}

void CpuGraph::plan_node(NodeId id, const std::vector<bool>& weight_only) {
  const Node& n = graph_.node(id);
  const std::vector<TensorRef> inputs(n.inputs().begin(), n.inputs().end());
  std::vector<memory::desc> given;
  std::array<bool, kMaxInputs> weight{};
  for (size_t i = 0; i < inputs.size(); ++i) {
    given.push_back(tensor(inputs[i]).get_desc());
    weight[i] = weight_only[inputs[i].node];
  }
  const memory::desc* slice = nullptr;
  const NodeKernel& k =
      kernel_writing({id, 0}, id, given, std::span<const bool>(weight.data(), given.size()), nullptr, slice);
  std::vector<dnnl::memory> ins, outs;
  for (size_t i = 0; i < given.size(); ++i) ins.push_back(in_format(inputs[i], k.inputs[i], weight[i]));
  for (int port = 0; port < n.num_outputs(); ++port)
    outs.push_back(tensors_[id][port] =
                       port == 0 && slice ? slice_memory({id, 0}) : allocate(k.outputs[port]));
  if (k.reference) {
    std::vector<const float*> in_ptrs;
    std::vector<float*> out_ptrs;
    for (const dnnl::memory& m : ins) in_ptrs.push_back(data_of(m));
    for (const dnnl::memory& m : outs) out_ptrs.push_back(data_of(m));
    const Graph& g = graph_;
    steps_.push_back({{}, {}, [&g, id, in_ptrs, out_ptrs] { run_reference(g, id, in_ptrs, out_ptrs); }});
    return;
  }
  add_calls(k, ins, outs);
}

void CpuGraph::add_calls(const NodeKernel& k, const std::vector<dnnl::memory>& ins,
                         const std::vector<dnnl::memory>& outs) {
  for (const PrimitiveCall& call : k.calls) {
    Step step{call.primitive, {}, {}};
    for (const Binding& b : call.bindings) {
      dnnl::memory m = b.output ? outs[size_t(b.index)] : ins[size_t(b.index)];
      step.args[b.arg] = b.view ? dnnl::memory(*b.view, engine(), m.get_data_handle()) : m;
    }
    steps_.push_back(std::move(step));
  }
}

// A convolution or matmul with its fused followers, planned where the last follower
// stands in topological order (a residual may be computed after the
// producer). Only the last follower's output is held. When oneDNN rejects
// the fused primitive, the nodes run one by one.
void CpuGraph::plan_fusion(const Fusion& f, const std::vector<bool>& weight_only) {
  const std::vector<TensorRef> inputs = fused_inputs(graph_, f);
  std::vector<memory::desc> given;
  std::array<bool, kMaxInputs> weight{};
  for (size_t i = 0; i < inputs.size(); ++i) {
    given.push_back(tensor(inputs[i]).get_desc());
    weight[i] = weight_only[inputs[i].node];
  }
  const NodeKernel* k = nullptr;
  const memory::desc* slice = nullptr;
  try {
    const PostOps post = fused_post_ops(graph_, f);
    k = &kernel_writing({f.last(), 0}, f.producer, given, std::span<const bool>(weight.data(), given.size()),
                        &post, slice);
  } catch (const Error&) {
    writes_into_.erase({f.last(), 0});  // the last node alone is no writer (an eltwise)
    if (f.pad >= 0) plan_node(f.pad, weight_only);
    plan_node(f.producer, weight_only);
    for (NodeId id : f.absorbed) plan_node(id, weight_only);
    return;
  }
  std::vector<dnnl::memory> ins;
  for (size_t i = 0; i < given.size(); ++i) ins.push_back(in_format(inputs[i], k->inputs[i], weight[i]));
  dnnl::memory out = tensors_[f.last()][0] = slice ? slice_memory({f.last(), 0}) : allocate(k->outputs[0]);
  if (f.residual) {  // the sum post-op adds what the destination holds
    dnnl::memory residual = tensor(*f.residual);
    if (residual.get_desc().dims() != out.get_desc().dims())
      residual = dnnl::memory(plain_desc(out.get_desc().dims()), engine(), residual.get_data_handle());
    steps_.push_back({dnnl::reorder(residual, out), {{DNNL_ARG_FROM, residual}, {DNNL_ARG_TO, out}}, {}});
    ++reorders_;
  }
  add_calls(*k, ins, {out});
  fused_nodes_ += int(f.absorbed.size()) + (f.pad >= 0 ? 1 : 0);
}

// Which concats run in place (cpu_concat.h), decided before any producer is
// planned: their buffers are allocated now, in the format the concat primitive
// would have given them, and their writers' outputs become slices of them.
void CpuGraph::plan_concats(const std::vector<bool>& weight_only, const FusionPlan& fusions) {
  bool any = false;
  for (NodeId id = 0; id < graph_.num_nodes(); ++id)
    any = any || (graph_.node(id).op == OpType::concat && !weight_only[size_t(id)]);
  if (!any) return;
  ArrivalFormats arrival(cache_, graph_, weight_only);
  const std::function<memory::desc(TensorRef)> format = [&](TensorRef t) { return arrival(t); };
  for (NodeId id = 0; id < graph_.num_nodes(); ++id) {
    std::optional<ConcatInPlace> plan = concat_in_place(cache_, graph_, id, weight_only, fusions, format);
    if (!plan) continue;
    tensor({id, 0}) = allocate(plan->layout);
    for (size_t i = 0; i < plan->written.size(); ++i)
      if (plan->written[i]) {
        const TensorRef t = graph_.node(id).inputs()[i];
        writes_into_[{int(t.node), int(t.port)}] = {id, int(i)};
      }
    in_place_.emplace(id, std::move(*plan));
  }
}

const NodeKernel& CpuGraph::kernel_writing(TensorRef out, NodeId id, std::span<const memory::desc> given,
                                           std::span<const bool> weights, const PostOps* post,
                                           const memory::desc*& slice) {
  slice = slice_of(out);
  try {
    return cache_.get(graph_, id, given, weights, post, slice);
  } catch (const Error&) {
    if (!slice) throw;
    writes_into_.erase({int(out.node), int(out.port)});  // the concat copies it in
    slice = nullptr;
    return cache_.get(graph_, id, given, weights, post);
  }
}

const memory::desc* CpuGraph::slice_of(TensorRef t) const {
  auto it = writes_into_.find({int(t.node), int(t.port)});
  if (it == writes_into_.end()) return nullptr;
  return &in_place_.at(it->second.first).parts[size_t(it->second.second)];
}

dnnl::memory CpuGraph::slice_memory(TensorRef t) {
  const auto [concat, input] = writes_into_.at({int(t.node), int(t.port)});
  const ConcatInPlace& plan = in_place_.at(concat);
  return dnnl::memory(plan.parts[size_t(input)], engine(),
                      data_of(tensor({concat, 0})) + plan.offsets[size_t(input)]);
}

// A concat run in place: its writers have filled their slices; every other
// input is copied into its slice by one reorder, here, in the concat's place.
void CpuGraph::plan_concat_copies(NodeId id) {
  const Node& n = graph_.node(id);
  bool written = false;
  for (size_t i = 0; i < n.inputs().size(); ++i) {
    const TensorRef t = n.inputs()[i];
    auto it = writes_into_.find({int(t.node), int(t.port)});
    if (it != writes_into_.end() && it->second == std::make_pair(id, int(i))) {
      written = true;
      continue;
    }
    dnnl::memory source = tensor(t);
    const ConcatInPlace& plan = in_place_.at(id);
    dnnl::memory slice(plan.parts[i], engine(), data_of(tensor({id, 0})) + plan.offsets[i]);
    steps_.push_back({dnnl::reorder(source, slice), {{DNNL_ARG_FROM, source}, {DNNL_ARG_TO, slice}}, {}});
    ++concat_copies_;
  }
  concats_in_place_ += written;  // else every writer fell back at planning: copies only
}

CpuGraph::CpuGraph(KernelCache& cache, const Graph& g, uint64_t seed) : cache_(cache), graph_(g) {
  std::optional<std::vector<NodeId>> order = g.topological_order();
  if (!order) throw Error("graph has a cycle");
  const std::vector<bool> weight_only = weight_only_nodes(g);
  tensors_.resize(size_t(g.num_nodes()));
  for (NodeId id = 0; id < g.num_nodes(); ++id) tensors_[id].resize(size_t(g.node(id).num_outputs()));

  FoldedWeights folded = fold_weights(g, weight_only, seed);
  const std::vector<size_t> first_equal = first_equal_weights(folded);  // equal weights share one buffer
  for (size_t i = 0; i < folded.tensors.size(); ++i) {
    const TensorRef t = folded.tensors[i];
    if (first_equal[i] != i) {
      const TensorRef first = folded.tensors[first_equal[i]];
      tensor(t) = tensor(first);
      twin_[{int(t.node), int(t.port)}] = {int(first.node), int(first.port)};
      continue;
    }
    fill(tensor(t) = allocate(plain_desc(folded.values[i].shape)), folded.values[i].data);
  }
  RealArith<double> ar;
  SourceValues<RealArith<double>> sources = random_sources(ar, seed);
  const FusionPlan fusions = plan_fusions(g, weight_only);
  plan_concats(weight_only, fusions);
  for (NodeId id : *order) {
    const Node& n = g.node(id);
    if (weight_only[id]) continue;
    if (const int group = fusions.group_of[size_t(id)]; group >= 0) {
      if (fusions.groups[size_t(group)].last() == id) plan_fusion(fusions.groups[size_t(group)], weight_only);
    } else if (n.op == OpType::input) {
      Tensor<double> v = sources(g, id);
      fill(tensor({id, 0}) = allocate(plain_desc(v.shape)), v.data);
    } else if (runs_no_kernel(g, id)) {
      plan_views(id);
    } else if (in_place_.count(id)) {
      plan_concat_copies(id);
    } else {
      plan_node(id, weight_only);
    }
  }
  // The outputs end row-major, as a framework returns them: part of the timed run.
  for (TensorRef t : g.outputs()) in_format(t, plain_desc(g.shape(t)), weight_only[t.node]);
}

void CpuGraph::run() {
  for (Step& s : steps_) {
    if (s.host)
      s.host();
    else
      s.primitive.execute(stream(), s.args);
  }
  stream().wait();
}

bool CpuGraph::held(TensorRef t) const {
  return bool(tensors_.at(t.node).at(t.port));
}

Tensor<float> CpuGraph::download(TensorRef t) {
  const dnnl::memory& m = tensors_.at(t.node).at(t.port);
  if (!m)
    throw Error("tensor " + tensor_label(graph_, t) +
                " is not held (folded into a weight it feeds, or inside a fused convolution or matmul)");
  const Shape& shape = graph_.shape(t);
  dnnl::memory plain = m;
  if (!(m.get_desc() == plain_desc(shape))) {
    plain = allocate(plain_desc(shape));
    dnnl::memory source = m.get_desc().dims() == plain.get_desc().dims()
                              ? m
                              : dnnl::memory(plain_desc(m.get_desc().dims()), engine(), m.get_data_handle());
    dnnl::reorder(source, plain).execute(stream(), source, plain);
    stream().wait();
  }
  const float* p = data_of(plain);
  return Tensor<float>(shape, std::vector<float>(p, p + shape.num_elements()));
}

std::vector<Tensor<float>> CpuGraph::outputs() {
  std::vector<Tensor<float>> result;
  for (TensorRef t : graph_.outputs()) result.push_back(download(t));
  return result;
}

}  // namespace superopt::cpu
