// Operator dispatch for the GPU: shapes from the graph become kernel, cuDNN and
// cuBLAS call parameters; semantics follow runtime/kernels.h.
#include "runtime/exec/cuda/gpu_node.h"

#include "runtime/core/graph_analysis.h"
#include "runtime/core/kernels.h"
#include "runtime/exec/cuda/gpu_kernels.h"

namespace superopt::cuda {

// A flat view when both inputs have the output's shape; broadcast strides otherwise.
StridedShape binary_shape(const Shape& a, const Shape& b, const Shape& out) {
  StridedShape s;
  if (a == out && b == out) {
    s.rank = 1;
    s.dims[0] = out.num_elements();
    s.strides_a[0] = s.strides_b[0] = 1;
    return s;
  }
  Strides sa = kernels::broadcast_strides(a, out), sb = kernels::broadcast_strides(b, out);
  s.rank = out.rank();
  for (int i = 0; i < out.rank(); ++i) {
    s.dims[i] = out[i];
    s.strides_a[i] = sa[i];
    s.strides_b[i] = sb[i];
  }
  return s;
}

StridedShape transpose_shape(const OpParams& p, const Shape& in, const Shape& out) {
  std::array<int, kMaxRank> perm = kernels::resolve_perm(p.perm, in.rank());
  Strides st = row_major_strides(in);
  StridedShape s;
  s.rank = out.rank();
  for (int i = 0; i < out.rank(); ++i) {
    s.dims[i] = out[i];
    s.strides_a[i] = st[perm[i]];
  }
  return s;
}

ConvShape conv_shape(const OpParams& p, const Shape& x, const Shape& w, const Shape& y) {
  ConvShape s;
  s.batch = x[0];
  s.channels = x[1];
  s.height = x[2];
  s.width = x[3];
  s.outs = w[0];
  s.per_group = w[1];
  s.kernel_h = w[2];
  s.kernel_w = w[3];
  s.stride_h = p.stride_h;
  s.stride_w = p.stride_w;
  s.out_h = y[2];
  s.out_w = y[3];
  s.pad_top = window(s.height, s.kernel_h, s.stride_h, p.padding).pad_before;
  s.pad_left = window(s.width, s.kernel_w, s.stride_w, p.padding).pad_before;
  // What the last window needs beyond the input; negative (VALID leaving rows unused) is no padding.
  s.pad_bottom = std::max<int64_t>(0, (s.out_h - 1) * s.stride_h + s.kernel_h - s.height - s.pad_top);
  s.pad_right = std::max<int64_t>(0, (s.out_w - 1) * s.stride_w + s.kernel_w - s.width - s.pad_left);
  s.relu = p.activation == Activation::relu;
  return s;
}

PoolShape pool_shape(const OpParams& p, const Shape& x, const Shape& y) {
  PoolShape s;
  s.planes = x[0] * x[1];
  s.height = x[2];
  s.width = x[3];
  s.out_h = y[2];
  s.out_w = y[3];
  s.kernel_h = p.kernel_h;
  s.kernel_w = p.kernel_w;
  s.stride_h = p.stride_h;
  s.stride_w = p.stride_w;
  s.pad_h = window(s.height, s.kernel_h, s.stride_h, p.padding).pad_before;
  s.pad_w = window(s.width, s.kernel_w, s.stride_w, p.padding).pad_before;
  return s;
}

MatmulShape matmul_shape(const Shape& a, const Shape& b, const Shape& out, bool col_major) {
  MatmulShape s;
  s.m = a.back(1);
  s.k = a.back(0);
  s.n = b.back(0);
  s.batches = out.num_elements() / (s.m * s.n);
  s.a_step = a.rank() == out.rank() ? s.m * s.k : 0;
  s.b_step = b.rank() == out.rank() ? s.k * s.n : 0;
  s.col_major = col_major;
  // B broadcast over a batched row-major A (an attention's projection after its
  // transpose, [seq, 1, d] x [d, 3d]): one GEMM over all of A's rows instead of
  // one of a few rows per batch entry (the CPU executor's matmul_dims).
  if (!col_major && s.b_step == 0 && s.a_step != 0 && s.batches > 1) {
    s.m *= s.batches;
    s.batches = 1;
    s.a_step = s.m * s.k;
  }
  return s;
}

namespace {

UnaryOp unary_op(OpType op) {
  switch (op) {
    case OpType::relu:
      return UnaryOp::relu;
    case OpType::sigmoid:
      return UnaryOp::sigmoid;
    case OpType::silu:
      return UnaryOp::silu;
    case OpType::hardswish:
      return UnaryOp::hardswish;
    case OpType::gelu:
      return UnaryOp::gelu;
    case OpType::relu6:
      return UnaryOp::relu6;
    case OpType::tanh:
      return UnaryOp::tanh;
    default:
      throw Error(std::string(op_name(op)) + ": no unary GPU kernel");
  }
}

// Concat gathers each input's block per outer index; split scatters the other way.
void concat_copies(void* stream, const Graph& g, const Node& n, std::span<const float* const> inputs,
                   float* out) {
  const Shape& out_shape = n.output(0).shape;
  const int64_t outer = kernels::outer_inner(out_shape, n.params.axis).first;
  const int64_t out_block = out_shape.num_elements() / outer;
  int64_t offset = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const int64_t block = g.shape(n.inputs()[i]).num_elements() / outer;
    copy_rows(stream, out + offset, out_block * 4, inputs[i], block * 4, block * 4, outer);
    offset += block;
  }
}

void split_copies(void* stream, const Node& n, const Shape& in_shape, const float* in,
                  std::span<float* const> outputs) {
  const int64_t outer = kernels::outer_inner(in_shape, n.params.axis).first;
  const int64_t in_block = in_shape.num_elements() / outer;
  int64_t offset = 0;
  for (int port = 0; port < n.num_outputs(); ++port) {
    const int64_t block = n.output(port).shape.num_elements() / outer;
    copy_rows(stream, outputs[port], block * 4, in + offset, in_block * 4, block * 4, outer);
    offset += block;
  }
}

}  // namespace

bool view_offsets(const Graph& g, NodeId id, std::span<int64_t> offsets) {
  const Node& n = g.node(id);
  if (n.op == OpType::reshape) {
    offsets[0] = 0;
    return true;
  }
  if (n.op != OpType::split || !runs_no_kernel(g, id)) return false;
  // Only size-1 dimensions before the axis: each part is one contiguous slice.
  int64_t offset = 0;
  for (int port = 0; port < n.num_outputs(); ++port) {
    offsets[port] = offset;
    offset += n.output(port).shape.num_elements();
  }
  return true;
}

std::string launch_node(GpuContext& ctx, const Graph& g, NodeId id, std::span<const float* const> in,
                        std::span<float* const> out, const std::string& key, bool col_major) {
  const Node& n = g.node(id);
  const OpParams& p = n.params;
  void* stream = ctx.stream();
  auto in_shape = [&](int i) -> const Shape& { return g.shape(n.inputs()[i]); };
  const Shape& out_shape = n.output(0).shape;
  const int64_t count = out_shape.num_elements();
  switch (n.op) {
    case OpType::conv2d: {
      std::string algorithm = ctx.conv2d(key, conv_shape(p, in_shape(0), in_shape(1), out_shape), in[0],
                                         in[1], n.num_inputs == 3 ? in[2] : nullptr, out[0]);
      // cuDNN fuses relu (conv_shape); any other activation runs after, in place.
      if (p.activation != Activation::none && p.activation != Activation::relu) {
        launch_unary(stream, unary_op(*activation_op(p.activation)), out[0], out[0], count);
        algorithm.append("+").append(activation_name(p.activation)).append("_kernel");
      }
      return algorithm;
    }
    case OpType::matmul:
      return ctx.matmul(key, matmul_shape(in_shape(0), in_shape(1), out_shape, col_major), in[0], in[1],
                        out[0]);
    case OpType::linear: {
      // cuBLAS's product, then the bias and the activation in place (one pass each).
      std::string algorithm =
          ctx.matmul(key, matmul_shape(in_shape(0), in_shape(1), out_shape, col_major), in[0], in[1], out[0]);
      launch_binary(stream, BinaryOp::add, out[0], in[2], out[0],
                    binary_shape(out_shape, in_shape(2), out_shape));
      algorithm.append("+bias_kernel");
      if (p.activation != Activation::none) {
        launch_unary(stream, unary_op(*activation_op(p.activation)), out[0], out[0], count);
        algorithm.append("+").append(activation_name(p.activation)).append("_kernel");
      }
      return algorithm;
    }
    case OpType::ewadd:
    case OpType::ewmul:
      launch_binary(stream, n.op == OpType::ewadd ? BinaryOp::add : BinaryOp::mul, in[0], in[1], out[0],
                    binary_shape(in_shape(0), in_shape(1), out_shape));
      return "kernel:binary";
    case OpType::smul:
      launch_scale(stream, in[0], in[1], out[0], count);
      return "kernel:scale";
    case OpType::transpose:
      launch_gather(stream, in[0], out[0], transpose_shape(p, in_shape(0), out_shape));
      return "kernel:transpose";
    case OpType::relu:
    case OpType::sigmoid:
    case OpType::tanh:
    case OpType::silu:
    case OpType::hardswish:
    case OpType::gelu:
    case OpType::relu6:
      launch_unary(stream, unary_op(n.op), in[0], out[0], count);
      return "kernel:unary";
    case OpType::pool_avg:
    case OpType::pool_max:
      launch_pool(stream, n.op == OpType::pool_max, in[0], out[0], pool_shape(p, in_shape(0), out_shape));
      return "kernel:pool";
    case OpType::concat:
      concat_copies(stream, g, n, in, out[0]);
      return "copy:concat";
    case OpType::split:
      split_copies(stream, n, in_shape(0), in[0], out);
      return "copy:split";
    case OpType::batchnorm: {
      const Shape& x = in_shape(0);
      launch_batchnorm(stream, in[0], in[1], in[2], in[3], in[4], p.epsilon, out[0], x[0], x[1],
                       kernels::outer_inner(x, 1).second);
      return "kernel:batchnorm";
    }
    case OpType::softmax: {
      auto [outer, inner] = kernels::outer_inner(out_shape, p.axis);
      launch_softmax(stream, in[0], out[0], outer, out_shape[p.axis], inner);
      return "kernel:softmax";
    }
    case OpType::reshape:
      if (in[0] != out[0]) copy_rows(stream, out[0], count * 4, in[0], count * 4, count * 4, 1);
      return "view";
    default:
      throw Error(std::string(op_name(n.op)) + ": no GPU kernel (" + key +
                  "); weight-only operators are folded on the CPU before running");
  }
}

}  // namespace superopt::cuda
