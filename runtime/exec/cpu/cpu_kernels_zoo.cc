// oneDNN primitives for the operators imported models bring (issue 36): layer
// normalization, the eltwise activations (hardsigmoid, hardswish, silu, gelu,
// sqrt, clip), subtraction and division (binary), bilinear resize (resampling),
// slice (a reorder from a sub-tensor), reduce_mean (reduction) and expand (a
// reorder from zero-stride broadcast strides). Semantics follow
// runtime/core/kernels_imported.h.
#include "runtime/exec/cpu/cpu_kernels_zoo.h"

#include "runtime/core/kernels.h"
#include "runtime/exec/cpu/cpu_engine.h"

namespace superopt::cpu {
namespace {

using dnnl::algorithm;
using dnnl::prop_kind;
constexpr auto f32 = memory::data_type::f32;

PrimitiveCall unary_call(const dnnl::primitive& p, bool in_place) {
  return {p, {{DNNL_ARG_SRC, in_place, 0, {}}, {DNNL_ARG_DST, true, 0, {}}}};
}

dnnl::eltwise_forward::primitive_desc eltwise(algorithm alg, const memory::desc& src, float alpha,
                                              float beta) {
  return dnnl::eltwise_forward::primitive_desc(
      dnnl::eltwise_forward::desc(prop_kind::forward_inference, alg, src, alpha, beta), engine());
}

// One eltwise primitive in the input's format; hardsigmoid is two (oneDNN 2.6
// has none): clip(x, -3, 3) / 6 + 1/2 = clip(x / 6 + 1/2, 0, 1), the second in place.
NodeKernel activation_kernel(const Node& n, const memory::desc& src) {
  std::vector<EltwiseStep> steps;
  if (std::optional<EltwiseStep> step = eltwise_step(n))
    steps = {*step};
  else  // hardsigmoid
    steps = {{algorithm::eltwise_clip_v2, -3.f, 3.f}, {algorithm::eltwise_linear, 1.f / 6.f, 0.5f}};
  NodeKernel k;
  k.inputs = {src};
  k.algorithm = "onednn:eltwise:";
  for (size_t i = 0; i < steps.size(); ++i) {
    auto pd = eltwise(steps[i].algorithm, src, steps[i].alpha, steps[i].beta);
    k.outputs = {pd.dst_desc()};
    k.calls.push_back(unary_call(dnnl::eltwise_forward(pd), i > 0));
    k.algorithm.append(i ? "+" : "").append(pd.impl_info_str());
  }
  return k;
}

// Normalized over the trailing dimensions: the data viewed as [rows, row],
// scale and shift as [row].
NodeKernel layer_norm_kernel(const Graph& g, const Node& n) {
  NodeKernel k = plain_kernel(g, n);
  const Shape& x = g.shape(n.inputs()[0]);
  const int64_t row = g.shape(n.inputs()[1]).num_elements(), rows = x.num_elements() / row;
  const memory::desc data = plain_desc(memory::dims{rows, row}), vec = plain_desc(memory::dims{row});
  const auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
  dnnl::layer_normalization_forward::primitive_desc pd(
      dnnl::layer_normalization_forward::desc(prop_kind::forward_inference, data, n.params.epsilon, flags),
      engine());
  k.calls.push_back({dnnl::layer_normalization_forward(pd),
                     {{DNNL_ARG_SRC, false, 0, data},
                      {DNNL_ARG_SCALE, false, 1, vec},
                      {DNNL_ARG_SHIFT, false, 2, vec},
                      {DNNL_ARG_DST, true, 0, data}}});
  k.algorithm = std::string("onednn:layer_norm:") + pd.impl_info_str();
  return k;
}

// Bilinear resampling with half-pixel centres (oneDNN's linear), the leading
// dimensions folded into channels of one image.
NodeKernel resize_kernel(const Graph& g, const Node& n) {
  NodeKernel k = plain_kernel(g, n);
  const Shape& x = g.shape(n.inputs()[0]);
  const Shape& y = n.output(0).shape;
  const int r = x.rank();
  const int64_t planes = x.num_elements() / (x[r - 2] * x[r - 1]);
  const memory::desc src = plain_desc(memory::dims{1, planes, x[r - 2], x[r - 1]});
  const memory::desc dst = plain_desc(memory::dims{1, planes, y[r - 2], y[r - 1]});
  dnnl::resampling_forward::primitive_desc pd(
      dnnl::resampling_forward::desc(prop_kind::forward_inference, algorithm::resampling_linear, src, dst),
      engine());
  k.calls.push_back(
      {dnnl::resampling_forward(pd), {{DNNL_ARG_SRC, false, 0, src}, {DNNL_ARG_DST, true, 0, dst}}});
  k.algorithm = std::string("onednn:resampling:") + pd.impl_info_str();
  return k;
}

NodeKernel slice_kernel(const Graph& g, const Node& n) {
  NodeKernel k = plain_kernel(g, n);
  memory::dims offsets(k.inputs[0].dims().size(), 0);
  offsets[size_t(n.params.axis)] = n.params.begin;
  const memory::desc sub = k.inputs[0].submemory_desc(dims_of(n.output(0).shape), offsets);
  dnnl::reorder::primitive_desc pd(engine(), sub, engine(), k.outputs[0]);
  k.calls.push_back({dnnl::reorder(pd), {{DNNL_ARG_FROM, false, 0, sub}, {DNNL_ARG_TO, true, 0, {}}}});
  k.algorithm = std::string("onednn:reorder:") + pd.impl_info_str();
  return k;
}

NodeKernel reduce_mean_kernel(const Graph& g, const Node& n) {
  NodeKernel k = plain_kernel(g, n);
  dnnl::reduction::primitive_desc pd(
      dnnl::reduction::desc(algorithm::reduction_mean, k.inputs[0], k.outputs[0], 0.f, 0.f), engine());
  k.calls.push_back({dnnl::reduction(pd), {{DNNL_ARG_SRC, false, 0, {}}, {DNNL_ARG_DST, true, 0, {}}}});
  k.algorithm = std::string("onednn:reduction:") + pd.impl_info_str();
  return k;
}

// The input read through broadcast strides (0 along expanded dimensions).
NodeKernel expand_kernel(const Graph& g, const Node& n) {
  NodeKernel k = plain_kernel(g, n);
  const Shape& out = n.output(0).shape;
  const Strides st = kernels::broadcast_strides(g.shape(n.inputs()[0]), out);
  memory::dims strides;
  for (int i = 0; i < out.rank(); ++i) strides.push_back(st[i]);
  const memory::desc broadcast(dims_of(out), f32, strides);
  dnnl::reorder::primitive_desc pd(engine(), broadcast, engine(), k.outputs[0]);
  k.calls.push_back({dnnl::reorder(pd), {{DNNL_ARG_FROM, false, 0, broadcast}, {DNNL_ARG_TO, true, 0, {}}}});
  k.algorithm = std::string("onednn:reorder:") + pd.impl_info_str();
  return k;
}

}  // namespace

std::optional<NodeKernel> zoo_kernel(const Graph& g, const Node& n, std::span<const memory::desc> given) {
  switch (n.op) {
    case OpType::hardsigmoid:
    case OpType::hardswish:
    case OpType::silu:
    case OpType::gelu:
    case OpType::relu6:
    case OpType::sqrt:
    case OpType::exp:
    case OpType::clip:
      return activation_kernel(n, given[0]);
    case OpType::layer_norm:
      return layer_norm_kernel(g, n);
    case OpType::resize:
      return resize_kernel(g, n);
    case OpType::slice:
      return slice_kernel(g, n);
    case OpType::reduce_mean:
      return reduce_mean_kernel(g, n);
    case OpType::expand:
      return expand_kernel(g, n);
    default:
      return std::nullopt;
  }
}

}  // namespace superopt::cpu
