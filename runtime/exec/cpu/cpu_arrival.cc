// Arrival formats and planned conversions (see cpu_arrival.h); mirrors
// CpuGraph::in_format, plan_views, plan_node and plan_fusion.
#include "runtime/exec/cpu/cpu_arrival.h"

#include <set>

#include "runtime/core/error.h"
#include "runtime/core/graph_analysis.h"
#include "runtime/cost/cost_model.h"

namespace superopt::cpu {

ArrivalFormats::ArrivalFormats(KernelCache& cache, const Graph& g, const std::vector<bool>& weight_only)
    : cache_(cache), g_(g), weight_only_(weight_only), plan_(plan_fusions(g, weight_only)) {}

memory::desc ArrivalFormats::operator()(TensorRef t) {
  const auto key = std::make_pair(t.node, t.port);
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  const memory::desc d = compute(t);
  memo_.emplace(key, d);
  return d;
}

const NodeKernel& ArrivalFormats::kernel(NodeId id, const std::vector<TensorRef>& inputs,
                                         const PostOps* post) {
  std::vector<memory::desc> given;
  std::array<bool, kMaxInputs> weight{};
  for (size_t i = 0; i < inputs.size(); ++i) {
    given.push_back((*this)(inputs[i]));
    weight[i] = weight_only_[inputs[i].node];
  }
  return cache_.get(g_, id, given, std::span<const bool>(weight.data(), given.size()), post);
}

memory::desc ArrivalFormats::compute(TensorRef t) {
  const memory::desc plain = plain_desc(g_.shape(t));
  if (weight_only_[t.node] || g_.node(t.node).op == OpType::input || runs_no_kernel(g_, t.node)) return plain;
  const int group = plan_.group_of[size_t(t.node)];
  try {
    const NodeKernel* k = nullptr;
    // A group's leading pad is read by the group, not produced by it: timed
    // alone (measure), the pad runs on the host and leaves the plain layout.
    if (group >= 0 && plan_.groups[size_t(group)].pad == t.node) return plain;
    if (group >= 0) {
      const Fusion& f = plan_.groups[size_t(group)];
      const PostOps post = fused_post_ops(g_, f);
      k = &kernel(f.producer, fused_inputs(g_, f), &post);
    } else {
      const Node& n = g_.node(t.node);
      k = &kernel(t.node, std::vector<TensorRef>(n.inputs().begin(), n.inputs().end()), nullptr);
    }
    return k->reference ? plain : k->outputs[size_t(t.port)];
  } catch (const Error&) {
    return plain;  // the executor runs it unfused or refuses the graph
  }
}

namespace {

// CpuGraph::in_format without the buffers: the conversions it adds.
class ConversionPlanner {
 public:
  ConversionPlanner(const Graph& g, ArrivalFormats& arrival, const std::vector<bool>& weight_only)
      : g_(g), arrival_(arrival), weight_only_(weight_only) {}

  void in_format(TensorRef t, const memory::desc& want) {
    if (weight_only_[t.node]) return;  // converted once at load
    const memory::desc have = arrival_(t);
    if (have == want || !seen_.insert({t.node, t.port, format_id(want)}).second) return;
    memory::desc source = have;
    if (have.dims() != want.dims()) {  // another rank: the row-major tensor re-read
      in_format(t, plain_desc(g_.shape(t)));
      source = plain_desc(want.dims());
    }
    if (!(source == want)) out.push_back({t, source, want});
  }
  void copy(TensorRef t, const memory::desc& to) {
    memory::desc from = arrival_(t);
    if (from.dims() != to.dims()) from = plain_desc(to.dims());
    out.push_back({t, from, to});
  }

  std::vector<Conversion> out;

 private:
  int format_id(const memory::desc& d) {
    for (size_t i = 0; i < formats_.size(); ++i)
      if (formats_[i] == d) return int(i);
    formats_.push_back(d);
    return int(formats_.size()) - 1;
  }
  const Graph& g_;
  ArrivalFormats& arrival_;
  const std::vector<bool>& weight_only_;
  std::set<std::tuple<NodeId, int, int>> seen_;
  std::vector<memory::desc> formats_;
};

}  // namespace

std::vector<Conversion> planned_conversions(KernelCache& cache, const Graph& g,
                                            const std::vector<bool>& weight_only) {
  ArrivalFormats arrival(cache, g, weight_only);
  return planned_conversions(arrival, g, weight_only);
}

std::vector<Conversion> planned_conversions(ArrivalFormats& arrival, const Graph& g,
                                            const std::vector<bool>& weight_only) {
  std::optional<std::vector<NodeId>> order = g.topological_order();
  if (!order) throw Error("graph has a cycle");
  ConversionPlanner planner(g, arrival, weight_only);
  const FusionPlan& plan = arrival.fusions();
  for (NodeId id : *order) {
    const Node& n = g.node(id);
    if (weight_only[size_t(id)] || n.op == OpType::input) continue;
    if (const int group = plan.group_of[size_t(id)]; group >= 0) {
      const Fusion& f = plan.groups[size_t(group)];
      if (f.last() != id) continue;
      const std::vector<TensorRef> inputs = fused_inputs(g, f);
      const PostOps post = fused_post_ops(g, f);
      const NodeKernel& k = arrival.kernel(f.producer, inputs, &post);
      for (size_t i = 0; i < inputs.size(); ++i) planner.in_format(inputs[i], k.inputs[i]);
      if (f.residual) planner.copy(*f.residual, k.outputs[0]);
    } else if (runs_no_kernel(g, id)) {
      planner.in_format(n.inputs()[0], plain_desc(g.shape(n.inputs()[0])));
    } else {
      const std::vector<TensorRef> inputs(n.inputs().begin(), n.inputs().end());
      const NodeKernel& k = arrival.kernel(id, inputs, nullptr);
      for (size_t i = 0; i < inputs.size(); ++i) planner.in_format(inputs[i], k.inputs[i]);
    }
  }
  for (TensorRef t : g.outputs()) planner.in_format(t, plain_desc(g.shape(t)));
  return planner.out;
}

namespace {

std::string format_text(const memory::desc& d) {
  const dnnl_memory_desc_t& md = d.data;
  std::string s = "s";
  for (int i = 0; i < md.ndims; ++i)
    s.append(i ? ":" : "").append(std::to_string(md.format_desc.blocking.strides[i]));
  const auto& b = md.format_desc.blocking;
  for (int i = 0; i < b.inner_nblks; ++i)
    s.append(i ? "," : "+b")
        .append(std::to_string(b.inner_idxs[i]))
        .append("x")
        .append(std::to_string(b.inner_blks[i]));
  return s;
}

}  // namespace

std::string conversion_signature(const Graph& g, const Conversion& c) {
  std::string s = "reorder||";
  s.append(g.shape(c.tensor).str())
      .append("|")
      .append(format_text(c.from))
      .append(">")
      .append(format_text(c.to));
  return s;
}

}  // namespace superopt::cpu
