// Operator dispatch for the CPU: shapes and parameters from the graph become
// oneDNN primitive descriptors; semantics follow runtime/core/kernels.h.
#include "runtime/exec/cpu/cpu_kernels.h"

#include <oneapi/dnnl/dnnl_debug.h>
#include <algorithm>
#include <sstream>

#include "runtime/core/arith.h"
#include "runtime/core/error.h"
#include "runtime/core/kernels.h"
#include "runtime/cost/cost_model.h"
#include "runtime/exec/cpu/cpu_engine.h"
#include "runtime/exec/cpu/cpu_kernels_zoo.h"
#include "runtime/exec/cpu/cpu_matmul.h"
#include "runtime/exec/cpu/cpu_primitives.h"

namespace superopt::cpu {

memory::desc any_desc(const memory::dims& dims) {
  return memory::desc(dims, memory::data_type::f32, memory::format_tag::any);
}

// The dimensions of a shape with leading ones up to `rank` (NumPy broadcasting aligns right).
memory::dims padded_dims(const Shape& s, int rank) {
  memory::dims d(size_t(rank - s.rank()), 1);
  for (int i = 0; i < s.rank(); ++i) d.push_back(s[i]);
  return d;
}

std::string impl_text(const dnnl::primitive_desc_base& pd) {
  return pd.impl_info_str();
}

// The post-ops of fused followers: sum, then the activation.
dnnl::primitive_attr post_ops_attr(const PostOps& post, Activation own) {
  dnnl::post_ops ops;
  if (own != Activation::none) {  // the convolution's own activation, before any sum
    const EltwiseStep first = *eltwise_step(*activation_op(own), OpParams{});
    ops.append_eltwise(1.f, first.algorithm, first.alpha, first.beta);
  }
  if (post.sum) ops.append_sum(1.f);
  if (post.activation)
    ops.append_eltwise(1.f, post.activation->algorithm, post.activation->alpha, post.activation->beta);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  return attr;
}

namespace {

using dnnl::algorithm;
using dnnl::prop_kind;
using tag = memory::format_tag;
constexpr auto f32 = memory::data_type::f32;

NodeKernel reference_kernel(const Graph& g, const Node& n) {
  NodeKernel k = plain_kernel(g, n);
  k.reference = true;
  k.algorithm = "reference:" + std::string(op_name(n.op));
  return k;
}

// pad: oneDNN has no primitive; a fill and one copy per row on the host
// (run_reference runs it), not the reference kernel's element loop.
NodeKernel pad_kernel(const Graph& g, const Node& n) {
  NodeKernel k = reference_kernel(g, n);
  k.algorithm = "host:pad";
  return k;
}

void pad_rows(const Graph& g, const Node& n, const float* x, float* y) {
  const Shape& in = g.shape(n.inputs()[0]);
  const Shape& out = n.output(0).shape;
  const int r = in.rank();
  const int64_t h = in[r - 2], w = in[r - 1], big_h = out[r - 2], big_w = out[r - 1];
  const int64_t planes = in.num_elements() / (h * w);
  std::fill(y, y + out.num_elements(), n.params.value);
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t row = 0; row < h; ++row)
      std::copy(x + (pl * h + row) * w, x + (pl * h + row + 1) * w,
                y + (pl * big_h + row + n.params.pads[0]) * big_w + n.params.pads[2]);
}

// What a convolution or pooling window reads: its source's dimensions and the
// padding before (top, left) and after (bottom, right) it.
struct SourceWindow {
  memory::dims src, before, after;
};

// The window of a node reading x (NCHW) with a kernel of kh x kw into y; a
// leading pad folded in (PostOps::pad) joins the window's own padding, and the
// source is then the pad's input.
SourceWindow source_window(const Shape& x, int64_t kh, int64_t kw, const OpParams& p, const Shape& y,
                           const std::optional<std::array<int32_t, 4>>& pad) {
  const std::array<int32_t, 4> extra = pad.value_or(std::array<int32_t, 4>{0, 0, 0, 0});
  const int64_t h = x[2] - extra[0] - extra[1], w = x[3] - extra[2] - extra[3];
  const int64_t top = window(x[2], kh, p.stride_h, p.padding).pad_before + extra[0];
  const int64_t left = window(x[3], kw, p.stride_w, p.padding).pad_before + extra[2];
  // What the last window needs beyond the source (TensorFlow SAME puts the odd
  // pixel after); negative (VALID leaving rows unused) is no padding.
  const int64_t bottom = std::max<int64_t>(0, (y[2] - 1) * p.stride_h + kh - h - top);
  const int64_t right = std::max<int64_t>(0, (y[3] - 1) * p.stride_w + kw - w - left);
  return {{x[0], x[1], h, w}, {top, left}, {bottom, right}};
}

// A convolution; the bias (input 2, bound as [C]) is its own third input or a
// fused follower's; with post ops, also the sum and the eltwise of its fused
// followers, and a leading pad.
NodeKernel conv_kernel(const Graph& g, const Node& n, std::span<const memory::desc> given,
                       const PostOps& post, const memory::desc* dst) {
  const OpParams& p = n.params;
  const Shape& x = g.shape(n.inputs()[0]);
  const Shape& w = g.shape(n.inputs()[1]);
  const Shape& y = n.output(0).shape;
  const int64_t groups = x[1] / w[1];
  const SourceWindow win = source_window(x, w[2], w[3], p, y, post.pad);
  const memory::dims weight_dims = groups == 1 ? memory::dims{w[0], w[1], w[2], w[3]}
                                               : memory::dims{groups, w[0] / groups, w[1], w[2], w[3]};
  const memory::desc bias = plain_desc(memory::dims{y[1]});
  const bool has_bias = post.bias || n.num_inputs == 3;
  const memory::desc out = dst ? *dst : any_desc(dims_of(y));
  auto make_desc = [&] {
    const memory::dims strides{p.stride_h, p.stride_w};
    if (has_bias)
      return dnnl::convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct,
                                             any_desc(win.src), any_desc(weight_dims), bias, out, strides,
                                             win.before, win.after);
    return dnnl::convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct,
                                           any_desc(win.src), any_desc(weight_dims), out, strides, win.before,
                                           win.after);
  };
  const dnnl::primitive_attr attr = post_ops_attr(post, p.activation);
  dnnl::convolution_forward::primitive_desc pd(make_desc(), attr, engine());
  NodeKernel k;
  k.inputs = {pd.src_desc(), pd.weights_desc()};  // a grouped kernel is viewed as 5-D goihw
  k.outputs = {pd.dst_desc()};
  PrimitiveCall call{
      dnnl::convolution_forward(pd),
      {{DNNL_ARG_SRC, false, 0, {}}, {DNNL_ARG_WEIGHTS, false, 1, {}}, {DNNL_ARG_DST, true, 0, {}}}};
  if (has_bias) {
    k.inputs.push_back(plain_desc(given[2].dims()));
    call.bindings.push_back({DNNL_ARG_BIAS, false, 2, bias});
  }
  k.calls.push_back(std::move(call));
  k.algorithm = "onednn:conv:";
  k.algorithm.append(impl_text(pd))
      .append(n.num_inputs == 3 ? "+own_bias" : "")
      .append(p.activation != Activation::none ? "+" + std::string(activation_name(p.activation)) : "")
      .append(post.key());
  return k;
}

// ewadd, ewmul, smul: src0 is the input of the output's shape, in whatever format
// it has; the other is broadcast from a plain row-major tensor, or, at the full
// shape, brought to src0's format.
NodeKernel binary_kernel(const Graph& g, const Node& n, std::span<const memory::desc> given,
                         const memory::desc* dst) {
  const Shape& out = n.output(0).shape;
  const int full = g.shape(n.inputs()[0]) == out ? 0 : g.shape(n.inputs()[1]) == out ? 1 : -1;
  // Both inputs broadcast (e.g. [n,1] + [1,m]): oneDNN 2.6 broadcasts src1 only;
  // subtraction and division cannot exchange their operands.
  const bool ordered = n.op == OpType::ewsub || n.op == OpType::ewdiv;
  if (full < 0 || (ordered && full != 0)) {
    if (dst) throw Error("binary: no destination of its own on the reference kernel");
    return reference_kernel(g, n);
  }
  const int other = 1 - full;
  const Shape& other_shape = g.shape(n.inputs()[other]);
  memory::desc src0 = given[full];
  const bool same_shape = other_shape == out;
  const algorithm alg = n.op == OpType::ewadd   ? algorithm::binary_add
                        : n.op == OpType::ewsub ? algorithm::binary_sub
                        : n.op == OpType::ewdiv ? algorithm::binary_div
                                                : algorithm::binary_mul;
  const memory::dims broadcast_dims = padded_dims(other_shape, out.rank());
  const memory::desc broadcast = plain_desc(broadcast_dims);
  memory::desc src1 = same_shape ? src0 : broadcast;
  auto make = [&] {
    return dnnl::binary::primitive_desc(dnnl::binary::desc(alg, src0, src1, dst ? *dst : src0), engine());
  };
  dnnl::binary::primitive_desc pd = make();
  auto is_ref = [&] { return impl_text(pd).rfind("ref", 0) == 0; };
  // oneDNN 2.6 broadcasts a plain operand over a blocked one (a per-channel
  // scale or bias after a convolution's nChw8c output) only in its reference
  // implementation, 10-20 ms where the JIT one takes 0.05. The small operand
  // is then asked for in the big one's blocking (its own reorder, tiny: a
  // squeeze-excitation gate [1,C,1,1]); where that is refused too, the full
  // operand in row-major order (a reorder of the big one in front).
  if (!same_shape && src0 != plain_desc(out) && is_ref() && out.rank() == 4) {
    for (memory::format_tag tag : {memory::format_tag::nChw8c, memory::format_tag::nChw16c}) {
      if (src0 != memory::desc(dims_of(out), f32, tag)) continue;
      src1 = memory::desc(broadcast_dims, f32, tag);
      pd = make();
      if (is_ref()) src1 = broadcast;
    }
  }
  if (!same_shape && src0 != plain_desc(out) && is_ref()) {
    src0 = plain_desc(out);
    pd = make();
  }
  const bool blocked_operand = !same_shape && src1 != broadcast;
  NodeKernel k;
  k.inputs.resize(2);
  k.inputs[full] = src0;
  k.inputs[other] = same_shape ? src0 : blocked_operand ? src1 : plain_desc(other_shape);
  k.outputs = {pd.dst_desc()};
  k.calls.push_back({dnnl::binary(pd),
                     {{DNNL_ARG_SRC_0, false, full, {}},
                      {DNNL_ARG_SRC_1, false, other,
                       same_shape || blocked_operand ? std::optional<memory::desc>() : broadcast},
                      {DNNL_ARG_DST, true, 0, {}}}});
  k.algorithm = "onednn:binary:" + impl_text(pd);
  return k;
}

NodeKernel eltwise_kernel(const Node& n, const memory::desc& src) {
  const EltwiseStep step = *eltwise_step(n);
  dnnl::eltwise_forward::primitive_desc pd(
      dnnl::eltwise_forward::desc(prop_kind::forward_inference, step.algorithm, src, step.alpha, step.beta),
      engine());
  NodeKernel k;
  k.inputs = {src};
  k.outputs = {pd.dst_desc()};
  k.calls.push_back({dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, false, 0, {}}, {DNNL_ARG_DST, true, 0, {}}}});
  k.algorithm = "onednn:eltwise:" + impl_text(pd);
  return k;
}

// Average pooling counts padding as zeros and divides by the full window
// (include_padding); max pooling ignores padded positions, as the reference does,
// so a leading pad of zeros (average) or -inf (max) folds into the window.
NodeKernel pool_kernel(const Graph& g, const Node& n, const memory::desc& src, const memory::desc* dst,
                       const PostOps& post) {
  const OpParams& p = n.params;
  const Shape& y = n.output(0).shape;
  const SourceWindow win = source_window(g.shape(n.inputs()[0]), p.kernel_h, p.kernel_w, p, y, post.pad);
  const algorithm alg =
      n.op == OpType::pool_max ? algorithm::pooling_max : algorithm::pooling_avg_include_padding;
  dnnl::pooling_forward::desc d(prop_kind::forward_inference, alg, src, dst ? *dst : any_desc(dims_of(y)),
                                {p.stride_h, p.stride_w}, {p.kernel_h, p.kernel_w}, win.before, win.after);
  dnnl::pooling_forward::primitive_desc pd(d, engine());
  NodeKernel k;
  k.inputs = {src};
  k.outputs = {pd.dst_desc()};
  k.calls.push_back({dnnl::pooling_forward(pd), {{DNNL_ARG_SRC, false, 0, {}}, {DNNL_ARG_DST, true, 0, {}}}});
  k.algorithm = "onednn:pool:" + impl_text(pd) + post.key();
  return k;
}

// Inference batch normalization with the folded statistics; other ranks than 4
// are viewed as [N, C, inner, 1].
NodeKernel batchnorm_kernel(const Graph& g, const Node& n, const memory::desc& given) {
  const Shape& x = g.shape(n.inputs()[0]);
  const int64_t channels = x[1];
  const bool four_d = x.rank() == 4;
  const memory::desc data =
      four_d ? given : plain_desc(memory::dims{x[0], channels, kernels::outer_inner(x, 1).second, 1});
  const auto flags = dnnl::normalization_flags::use_global_stats | dnnl::normalization_flags::use_scale |
                     dnnl::normalization_flags::use_shift;
  dnnl::batch_normalization_forward::primitive_desc pd(
      dnnl::batch_normalization_forward::desc(prop_kind::forward_inference, data, n.params.epsilon, flags),
      engine());
  NodeKernel k = plain_kernel(g, n);
  if (four_d) k.inputs[0] = k.outputs[0] = data;
  const std::optional<memory::desc> view = four_d ? std::nullopt : std::optional<memory::desc>(data);
  k.calls.push_back({dnnl::batch_normalization_forward(pd),
                     {{DNNL_ARG_SRC, false, 0, view},
                      {DNNL_ARG_SCALE, false, 1, {}},
                      {DNNL_ARG_SHIFT, false, 2, {}},
                      {DNNL_ARG_MEAN, false, 3, {}},
                      {DNNL_ARG_VARIANCE, false, 4, {}},
                      {DNNL_ARG_DST, true, 0, view}}});
  k.algorithm = "onednn:batchnorm:" + impl_text(pd);
  return k;
}

NodeKernel softmax_kernel(const Graph& g, const Node& n) {
  NodeKernel k = plain_kernel(g, n);
  dnnl::softmax_forward::primitive_desc pd(
      dnnl::softmax_forward::desc(prop_kind::forward_inference, k.inputs[0], n.params.axis), engine());
  k.calls.push_back({dnnl::softmax_forward(pd), {{DNNL_ARG_SRC, false, 0, {}}, {DNNL_ARG_DST, true, 0, {}}}});
  k.algorithm = "onednn:softmax:" + impl_text(pd);
  return k;
}

// A reorder from the input read through permuted strides into a row-major output.
NodeKernel transpose_kernel(const Graph& g, const Node& n) {
  NodeKernel k = plain_kernel(g, n);
  const Shape& in = g.shape(n.inputs()[0]);
  const Shape& out = n.output(0).shape;
  const std::array<int, kMaxRank> perm = kernels::resolve_perm(n.params.perm, in.rank());
  const Strides in_strides = row_major_strides(in);
  memory::dims strides;
  for (int i = 0; i < out.rank(); ++i) strides.push_back(in_strides[perm[i]]);
  const memory::desc permuted(dims_of(out), f32, strides);
  dnnl::reorder::primitive_desc pd(engine(), permuted, engine(), k.outputs[0]);
  k.calls.push_back({dnnl::reorder(pd), {{DNNL_ARG_FROM, false, 0, permuted}, {DNNL_ARG_TO, true, 0, {}}}});
  k.algorithm = "onednn:reorder:" + impl_text(pd);
  return k;
}

// Concatenation in the inputs' own formats when oneDNN can; row-major otherwise
// (blocked formats cannot be cut at channel counts that are not whole blocks).
NodeKernel concat_kernel(const Graph& g, const Node& n, std::span<const memory::desc> given) {
  NodeKernel k = plain_kernel(g, n);
  dnnl::concat::primitive_desc pd;
  try {
    pd = dnnl::concat::primitive_desc(n.params.axis, std::vector<memory::desc>(given.begin(), given.end()),
                                      engine());
    k.inputs.assign(given.begin(), given.end());
  } catch (const dnnl::error&) {
    pd = dnnl::concat::primitive_desc(k.outputs[0], n.params.axis, k.inputs, engine());
  }
  k.outputs = {pd.dst_desc()};
  PrimitiveCall call{dnnl::concat(pd), {{DNNL_ARG_DST, true, 0, {}}}};
  for (int i = 0; i < int(k.inputs.size()); ++i)
    call.bindings.push_back({DNNL_ARG_MULTIPLE_SRC + i, false, i, {}});
  k.calls.push_back(std::move(call));
  k.algorithm = "onednn:concat:" + impl_text(pd);
  return k;
}

// A split that is not a view: one reorder per part from a sub-tensor of the input.
NodeKernel split_kernel(const Graph& g, const Node& n) {
  NodeKernel k = plain_kernel(g, n);
  const int axis = n.params.axis;
  memory::dims offsets(size_t(k.inputs[0].dims().size()), 0);
  for (int port = 0; port < n.num_outputs(); ++port) {
    const memory::dims part = dims_of(n.output(port).shape);
    const memory::desc sub = k.inputs[0].submemory_desc(part, offsets);
    dnnl::reorder::primitive_desc pd(engine(), sub, engine(), k.outputs[port]);
    k.calls.push_back({dnnl::reorder(pd), {{DNNL_ARG_FROM, false, 0, sub}, {DNNL_ARG_TO, true, port, {}}}});
    offsets[size_t(axis)] += part[size_t(axis)];
    k.algorithm = "onednn:reorder:" + impl_text(pd);
  }
  return k;
}

}  // namespace

std::optional<EltwiseStep> eltwise_step(OpType op, const OpParams& p) {
  switch (op) {
    case OpType::relu:
      return EltwiseStep{algorithm::eltwise_relu};
    case OpType::sigmoid:
      return EltwiseStep{algorithm::eltwise_logistic};
    case OpType::tanh:
      return EltwiseStep{algorithm::eltwise_tanh};
    case OpType::hardswish:
      return EltwiseStep{algorithm::eltwise_hardswish};
    case OpType::silu:
      return EltwiseStep{algorithm::eltwise_swish, 1.f, 0.f};
    case OpType::gelu:
      return EltwiseStep{algorithm::eltwise_gelu_erf};
    case OpType::relu6:
      return EltwiseStep{algorithm::eltwise_clip_v2, 0.f, 6.f};
    case OpType::sqrt:
      return EltwiseStep{algorithm::eltwise_sqrt};
    case OpType::exp:
      return EltwiseStep{algorithm::eltwise_exp};
    case OpType::clip:
      return EltwiseStep{algorithm::eltwise_clip_v2, p.lo, p.hi};
    default:
      return std::nullopt;
  }
}

std::string PostOps::key() const {
  std::string k;
  if (pad) {
    std::ostringstream text;
    text << "+pad(" << (*pad)[0] << "," << (*pad)[1] << "," << (*pad)[2] << "," << (*pad)[3] << ")";
    k.append(text.str());
  }
  if (bias) k.append("+bias");
  if (sum) k.append("+sum");
  if (activation) {  // e.g. "+eltwise_clip_v2(0,6)": the kernel cache key and what measure prints
    k.append("+").append(dnnl_alg_kind2str(static_cast<dnnl_alg_kind_t>(activation->algorithm)));
    if (activation->alpha != 0 || activation->beta != 0) {
      std::ostringstream params;
      params << "(" << activation->alpha << "," << activation->beta << ")";
      k.append(params.str());
    }
  }
  return k;
}

std::vector<TensorRef> fused_inputs(const Graph& g, const Fusion& f) {
  const Node& n = g.node(f.producer);
  std::vector<TensorRef> inputs(n.inputs().begin(), n.inputs().end());
  if (f.pad >= 0) inputs[0] = g.node(f.pad).inputs()[0];
  if (f.bias) inputs.push_back(*f.bias);
  return inputs;
}

PostOps fused_post_ops(const Graph& g, const Fusion& f) {
  PostOps post{f.bias.has_value(), f.residual.has_value(), {}, {}};
  if (f.pad >= 0) post.pad = g.node(f.pad).params.pads;
  if (f.activation >= 0) {
    post.activation = eltwise_step(g.node(f.activation));
    if (!post.activation) throw Error(std::string(op_name(g.node(f.activation).op)) + ": no eltwise post-op");
  }
  return post;
}

NodeKernel plain_kernel(const Graph& g, const Node& n) {
  NodeKernel k;
  for (TensorRef t : n.inputs()) k.inputs.push_back(plain_desc(g.shape(t)));
  for (int port = 0; port < n.num_outputs(); ++port) k.outputs.push_back(plain_desc(n.output(port).shape));
  return k;
}

memory::dims dims_of(const Shape& shape) {
  memory::dims d;
  for (int i = 0; i < shape.rank(); ++i) d.push_back(shape[i]);
  if (d.empty()) d.push_back(1);
  return d;
}

memory::desc plain_desc(const memory::dims& dims) {
  memory::dims strides(dims.size(), 1);
  for (int i = int(dims.size()) - 2; i >= 0; --i)
    strides[size_t(i)] = strides[size_t(i) + 1] * dims[size_t(i) + 1];
  return memory::desc(dims, f32, strides);
}

memory::desc plain_desc(const Shape& shape) {
  return plain_desc(dims_of(shape));
}

bool takes_destination(OpType op) {
  switch (op) {
    case OpType::conv2d:
    case OpType::pool_avg:
    case OpType::pool_max:
    case OpType::ewadd:
    case OpType::ewmul:
    case OpType::smul:
    case OpType::ewsub:
    case OpType::ewdiv:
      return true;
    default:
      return false;
  }
}

NodeKernel build_kernel(const Graph& g, NodeId id, std::span<const memory::desc> given,
                        std::span<const bool> weight, const PostOps* post, const memory::desc* dst) {
  const Node& n = g.node(id);
  if (dst && !takes_destination(n.op))
    throw Error(std::string(op_name(n.op)) + ": no destination descriptor of its own");
  try {
    switch (n.op) {
      case OpType::conv2d:
        return conv_kernel(g, n, given, post ? *post : PostOps{}, dst);
      case OpType::matmul:
      case OpType::linear:
        return matmul_kernel(g, n, given, weight, post ? *post : PostOps{});
      case OpType::ewadd:
      case OpType::ewmul:
      case OpType::smul:
      case OpType::ewsub:
      case OpType::ewdiv:
        return binary_kernel(g, n, given, dst);
      case OpType::relu:
      case OpType::sigmoid:
      case OpType::tanh:
        return eltwise_kernel(n, given[0]);
      case OpType::pool_avg:
      case OpType::pool_max:
        return pool_kernel(g, n, given[0], dst, post ? *post : PostOps{});
      case OpType::batchnorm:
        return batchnorm_kernel(g, n, given[0]);
      case OpType::softmax:
        return softmax_kernel(g, n);
      case OpType::transpose:
        return transpose_kernel(g, n);
      case OpType::concat:
        return concat_kernel(g, n, given);
      case OpType::split:
        return split_kernel(g, n);
      case OpType::pad:
        return pad_kernel(g, n);
      default:
        if (std::optional<NodeKernel> k = zoo_kernel(g, n, given)) return std::move(*k);
        return reference_kernel(g, n);  // opaque, erf, both operands broadcast
    }
  } catch (const dnnl::error& e) {
    throw Error(std::string(op_name(n.op)) + ": oneDNN rejected " + op_signature(g, id) + " (" + e.what() +
                ")");
  }
}

void run_reference(const Graph& g, NodeId id, std::span<const float* const> inputs,
                   std::span<float* const> outputs) {
  const Node& n = g.node(id);
  if (n.op == OpType::pad) return pad_rows(g, n, inputs[0], outputs[0]);
  std::vector<Tensor<float>> tensors;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Shape& s = g.shape(n.inputs()[i]);
    tensors.emplace_back(s, std::vector<float>(inputs[i], inputs[i] + s.num_elements()));
  }
  std::vector<const Tensor<float>*> ptrs;
  for (const Tensor<float>& t : tensors) ptrs.push_back(&t);
  RealArith<float> ar;
  std::vector<Tensor<float>> result =
      run_op(ar, n.op, n.params, std::span<const Tensor<float>* const>(ptrs),
             std::span<const TensorDesc>(n.output_array.data(), size_t(n.num_outputs())));
  for (size_t port = 0; port < outputs.size(); ++port)
    std::copy(result[port].data.begin(), result[port].data.end(), outputs[port]);
}

int KernelCache::format_id(const memory::desc& d) {
  for (size_t i = 0; i < formats_.size(); ++i)
    if (formats_[i] == d) return int(i);
  formats_.push_back(d);
  return int(formats_.size()) - 1;
}

const NodeKernel& KernelCache::get(const Graph& g, NodeId id, std::span<const memory::desc> given,
                                   std::span<const bool> weight, const PostOps* post,
                                   const memory::desc* dst) {
  std::string key = op_signature(g, id);
  if (post) key.append(post->key());
  if (dst) key.append(">").append(std::to_string(format_id(*dst)));
  for (size_t i = 0; i < given.size(); ++i)
    key.append("|")
        .append(std::to_string(format_id(given[i])))
        .append(weight[i] ? "w" : "a");  // not +: GCC 12 -Wrestrict
  auto it = kernels_.find(key);
  if (it == kernels_.end()) it = kernels_.emplace(key, build_kernel(g, id, given, weight, post, dst)).first;
  return it->second;
}

}  // namespace superopt::cpu
