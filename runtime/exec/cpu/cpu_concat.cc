// Which concats run in place and how (cpu_concat.h): the structural test per
// input, the buffer's layout and slices, and a trial build of each producer
// with its slice as destination.
#include "runtime/exec/cpu/cpu_concat.h"

#include <algorithm>

#include "runtime/core/error.h"
#include "runtime/core/graph_analysis.h"

namespace superopt::cpu {
namespace {

// How many times tensor t is read: by node inputs and as a graph output.
int readers(const Graph& g, TensorRef t) {
  int count = int(std::count(g.outputs().begin(), g.outputs().end(), t));
  for (NodeId id = 0; id < g.num_nodes(); ++id)
    for (TensorRef in : g.node(id).inputs()) count += in == t;
  return count;
}

// The part's slices are where the concat's readers expect them only on the
// channel axis of a 4-D tensor (any layout oneDNN cut) or on a row-major axis
// with nothing but ones before it.
bool axis_in_place(const Shape& out, int axis, const memory::desc& layout) {
  if (out.rank() == 4 && axis == 1) return true;
  for (int i = 0; i < axis; ++i)
    if (out[i] != 1) return false;
  return layout == plain_desc(out);
}

// The slice of `layout` at `offsets` as a dense tensor of its own at an element
// offset, where it is one (batch 1: every channel slice of nchw or nChw8c is a
// contiguous run): given the sub-memory descriptor itself, oneDNN 2.6 picked
// its reference kernels (conv ref:any, binary ref:any, pool ref:any, measured
// here), given this one its JIT kernels. Otherwise the sub-memory descriptor,
// at offset 0 (batch 2: a channel slice is strided; the reference kernels
// then fail concat_in_place's test and the input is copied).
std::pair<memory::desc, int64_t> slice_desc(const memory::desc& layout, const memory::dims& part,
                                            const memory::dims& offsets) {
  const memory::desc sub = layout.submemory_desc(part, offsets);
  using tag = memory::format_tag;
  for (tag t : {tag::a, tag::ab, tag::abc, tag::abcd, tag::abcde, tag::acdb, tag::aBcd8b, tag::aBcd16b}) {
    memory::desc whole;
    try {
      whole = memory::desc(layout.dims(), memory::data_type::f32, t);
    } catch (const dnnl::error&) {
      continue;  // another rank
    }
    if (!(whole == layout)) continue;
    const memory::desc dense(part, memory::data_type::f32, t);
    const auto& a = sub.data.format_desc.blocking;
    const auto& b = dense.data.format_desc.blocking;
    // The same addresses: equal padded dimensions and strides (a dimension of 1 has no stride that matters).
    bool same = true;
    for (int d = 0; d < sub.data.ndims; ++d)
      same = same && sub.data.padded_dims[d] == dense.data.padded_dims[d] &&
             (sub.data.padded_dims[d] == 1 || a.strides[d] == b.strides[d]);
    if (same) return {dense, sub.data.offset0};
    break;
  }
  return {sub, 0};
}

}  // namespace

std::optional<PartWriter> part_writer(const Graph& g, NodeId concat, int input,
                                      const std::vector<bool>& weight_only, const FusionPlan& fusions) {
  const TensorRef t = g.node(concat).inputs()[size_t(input)];
  const Node& producer = g.node(t.node);
  if (weight_only[size_t(t.node)] || producer.op == OpType::input || runs_no_kernel(g, t.node) ||
      producer.num_outputs() != 1 || readers(g, t) != 1)
    return std::nullopt;
  if (const int group = fusions.group_of[size_t(t.node)]; group >= 0) {
    const Fusion& f = fusions.groups[size_t(group)];
    if (f.last() != t.node || g.node(f.producer).op != OpType::conv2d) return std::nullopt;
    try {
      return PartWriter{f.producer, fused_inputs(g, f), fused_post_ops(g, f)};
    } catch (const Error&) {
      return std::nullopt;  // the group runs unfused, its last node alone (an eltwise)
    }
  }
  if (!takes_destination(producer.op)) return std::nullopt;
  return PartWriter{t.node, std::vector<TensorRef>(producer.inputs().begin(), producer.inputs().end()), {}};
}

std::optional<ConcatInPlace> concat_in_place(KernelCache& cache, const Graph& g, NodeId id,
                                             const std::vector<bool>& weight_only, const FusionPlan& fusions,
                                             const std::function<memory::desc(TensorRef)>& arrival) {
  const Node& n = g.node(id);
  if (n.op != OpType::concat || weight_only[size_t(id)]) return std::nullopt;
  auto kernel = [&](NodeId node, const std::vector<TensorRef>& inputs, const PostOps* post,
                    const memory::desc* dst) -> const NodeKernel& {
    std::vector<memory::desc> given;
    std::array<bool, kMaxInputs> weight{};
    for (size_t i = 0; i < inputs.size(); ++i) {
      given.push_back(arrival(inputs[i]));
      weight[i] = weight_only[size_t(inputs[i].node)];
    }
    return cache.get(g, node, given, std::span<const bool>(weight.data(), given.size()), post, dst);
  };
  const std::vector<TensorRef> inputs(n.inputs().begin(), n.inputs().end());
  ConcatInPlace plan;
  try {
    plan.layout = kernel(id, inputs, nullptr, nullptr).outputs[0];  // what the concat primitive would give
  } catch (const Error&) {
    return std::nullopt;
  }
  const Shape& out = n.output(0).shape;
  if (!axis_in_place(out, n.params.axis, plan.layout)) return std::nullopt;
  memory::dims offsets(size_t(out.rank()), 0);
  for (TensorRef t : inputs) {
    const memory::dims part = dims_of(g.shape(t));
    try {
      const auto [desc, offset] = slice_desc(plan.layout, part, offsets);
      plan.parts.push_back(desc);
      plan.offsets.push_back(offset);
    } catch (const dnnl::error&) {
      return std::nullopt;  // a blocked layout cut inside a block (the concat primitive would not either)
    }
    offsets[size_t(n.params.axis)] += part[size_t(n.params.axis)];
  }
  bool any = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::optional<PartWriter> w = part_writer(g, id, int(i), weight_only, fusions);
    bool written = false;
    if (w) {
      try {
        const PostOps* post = w->post ? &*w->post : nullptr;
        const NodeKernel& alone = kernel(w->node, w->inputs, post, nullptr);
        const NodeKernel& into = kernel(w->node, w->inputs, post, &plan.parts[i]);
        written = !into.reference && into.algorithm == alone.algorithm && into.inputs == alone.inputs &&
                  into.outputs[0] == plan.parts[i];
      } catch (const Error&) {
        written = false;  // oneDNN refused the strided destination: the copy stays
      }
    }
    any = any || written;
    plan.written.push_back(written);
    plan.writers.push_back(w ? std::move(*w) : PartWriter{});
  }
  if (!any) return std::nullopt;
  return plan;
}

}  // namespace superopt::cpu
