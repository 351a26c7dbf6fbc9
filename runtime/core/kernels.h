// The reference kernels: each operator's semantics written once, as a template over an
// arithmetic (arith.h, arith_z3.h), so fingerprints, float checks and Z3 agree by construction.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/core/kernels_imported.h"
#include "runtime/core/operator_registry.h"
#include "runtime/core/tensor.h"

namespace superopt {

template <class A>
using TensorOf = Tensor<typename A::Value>;

namespace kernels {

// One element through an element-wise activation: the function of the operator
// activation_op(a) names, so that a convolution's fused activation and the
// operator mean the same thing (dispatch below uses it for those operators).
template <class A>
typename A::Value activate(const A& ar, Activation a, const typename A::Value& v) {
  switch (a) {
    case Activation::none:
      return v;
    case Activation::relu:
      return ar.relu(v);
    case Activation::sigmoid:
      return ar.sigmoid(v);
    case Activation::silu:
      return ar.mul(v, ar.sigmoid(v));
    case Activation::hardswish:
      return ar.mul(v, ar.hardsigmoid(v));
    case Activation::gelu:
      return gelu(ar, v);
    case Activation::relu6:
      return ar.relu6(v);
  }
  return v;
}

// Output positions o in [begin, end) whose input position o * stride + offset lies in [0, in).
struct Range {
  int64_t begin = 0, end = 0;
};
inline Range valid_positions(int64_t in, int64_t out, int64_t offset, int64_t stride) {
  int64_t begin = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  int64_t last = in - 1 - offset;
  int64_t end = last < 0 ? 0 : std::min(out, last / stride + 1);
  return {begin, std::max(begin, end)};
}

// Product of the dimensions before and after an axis.
inline std::pair<int64_t, int64_t> outer_inner(const Shape& s, int axis) {
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= s[i];
  for (int i = axis + 1; i < s.rank(); ++i) inner *= s[i];
  return {outer, inner};
}

// Strides that read `in` as if broadcast to `out` (NumPy: right-aligned, size-1 dims repeat).
inline Strides broadcast_strides(const Shape& in, const Shape& out) {
  Strides st = row_major_strides(in), result{};
  int shift = out.rank() - in.rank();
  for (int i = 0; i < in.rank(); ++i) result[i + shift] = in[i] == 1 ? 0 : st[i];
  return result;
}

// Calls f(out_index, a_index, b_index) for every element of `out` in row-major order,
// with a and b read through the given strides. The innermost dimension is a plain loop;
// only the outer ones step an odometer.
template <class F>
void strided_loop(const Shape& out, const Strides& sa, const Strides& sb, F&& f) {
  int rank = out.rank();
  if (rank == 0) return f(int64_t{0}, int64_t{0}, int64_t{0});
  const int64_t inner = out[rank - 1], step_a = sa[rank - 1], step_b = sb[rank - 1];
  const int64_t rows = out.num_elements() / inner;
  std::array<int64_t, kMaxRank> index{};
  int64_t a = 0, b = 0;
  for (int64_t row = 0, o = 0; row < rows; ++row, o += inner) {
    for (int64_t j = 0; j < inner; ++j) f(o + j, a + j * step_a, b + j * step_b);
    for (int d = rank - 2; d >= 0; --d) {
      a += sa[d];
      b += sb[d];
      if (++index[d] < out[d]) break;
      a -= sa[d] * out[d];
      b -= sb[d] * out[d];
      index[d] = 0;
    }
  }
}

template <class V, class Op>
Tensor<V> map(const Tensor<V>& x, Op op) {
  std::vector<V> values;
  values.reserve(x.data.size());
  for (const V& v : x.data) values.push_back(op(v));
  return Tensor<V>(x.shape, std::move(values));
}

template <class A, class Op>
TensorOf<A> broadcast(const A& ar, const TensorOf<A>& a, const TensorOf<A>& b, const Shape& out_shape,
                      Op op) {
  TensorOf<A> out(out_shape, ar.zero());
  if (a.shape == out_shape && b.shape == out_shape) {
    for (int64_t i = 0; i < out.size(); ++i) out[i] = op(a[i], b[i]);
    return out;
  }
  strided_loop(out_shape, broadcast_strides(a.shape, out_shape), broadcast_strides(b.shape, out_shape),
               [&](int64_t o, int64_t i, int64_t j) { out[o] = op(a[i], b[j]); });
  return out;
}

// Output dimension i is input dimension perm[i]; an unset perm reverses the dimensions.
inline std::array<int, kMaxRank> resolve_perm(const std::array<int8_t, kMaxRank>& perm, int rank) {
  std::array<int, kMaxRank> result{};
  for (int i = 0; i < rank; ++i) result[i] = perm[0] >= 0 ? perm[i] : rank - 1 - i;
  return result;
}

template <class A>
TensorOf<A> transpose(const A& ar, const OpParams& p, const TensorOf<A>& x, const Shape& out_shape) {
  std::array<int, kMaxRank> perm = resolve_perm(p.perm, x.shape.rank());
  Strides in = row_major_strides(x.shape), gather{};
  for (int i = 0; i < out_shape.rank(); ++i) gather[i] = in[perm[i]];
  TensorOf<A> out(out_shape, ar.zero());
  strided_loop(out_shape, gather, Strides{}, [&](int64_t o, int64_t i, int64_t) { out[o] = x[i]; });
  return out;
}

// dst[j] += tap * src[j * stride + offset] for j in r.
template <class A, class V>
void accumulate_row(const A& ar, const V& tap, const V* src, int64_t stride, int64_t offset, V* dst,
                    Range r) {
  if (stride == 1) {
    for (int64_t j = r.begin; j < r.end; ++j) dst[j] = ar.add(dst[j], ar.mul(tap, src[j + offset]));
  } else {
    for (int64_t j = r.begin; j < r.end; ++j) dst[j] = ar.add(dst[j], ar.mul(tap, src[j * stride + offset]));
  }
}

// [..., m, k] x [..., k, n]; a rank-2 operand against a batched one is shared by every batch.
template <class A>
TensorOf<A> matmul(const A& ar, const TensorOf<A>& a, const TensorOf<A>& b, const Shape& out_shape) {
  const int64_t m = a.shape.back(1), k = a.shape.back(0), n = b.shape.back(0);
  const int64_t batches = out_shape.num_elements() / (m * n);
  const int64_t a_step = a.shape.rank() == out_shape.rank() ? m * k : 0;
  const int64_t b_step = b.shape.rank() == out_shape.rank() ? k * n : 0;
  TensorOf<A> out(out_shape, ar.zero());
  // i, k, j order: the innermost loop runs along rows of b and of the output.
  for (int64_t batch = 0; batch < batches; ++batch) {
    const auto* pa = a.data.data() + batch * a_step;
    const auto* pb = b.data.data() + batch * b_step;
    auto* pc = out.data.data() + batch * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t kk = 0; kk < k; ++kk)
        accumulate_row(ar, pa[i * k + kk], pb + kk * n, 1, 0, pc + i * n, {0, n});
  }
  return out;
}

// A linear layer: act(x W + b), x [..., K], W [K, N], b [N] added to each row's sums
// before the activation, as PyTorch's Linear followed by its activation.
template <class A>
TensorOf<A> linear(const A& ar, const OpParams& p, const TensorOf<A>& x, const TensorOf<A>& w,
                   const TensorOf<A>& bias, const Shape& out_shape) {
  TensorOf<A> out = matmul(ar, x, w, out_shape);
  const int64_t n = out_shape.back(0);
  for (int64_t i = 0; i < out_shape.num_elements(); ++i)
    out.data[i] = activate(ar, p.activation, ar.add(out.data[i], bias.data[i % n]));
  return out;
}

// NCHW, weight [O, C/groups, KH, KW], an optional bias [O] added to the sums before the
// activation (ONNX's Conv). Each weight tap is added into whole output rows, so the
// innermost loop runs along contiguous output (and, at stride 1, input) elements.
template <class A>
TensorOf<A> conv2d(const A& ar, const OpParams& p, const TensorOf<A>& x, const TensorOf<A>& w,
                   const TensorOf<A>* bias, const Shape& out_shape) {
  const int64_t batch = x.shape[0], channels = x.shape[1], height = x.shape[2], width = x.shape[3];
  const int64_t outs = w.shape[0], per_group = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  const int64_t out_h = out_shape[2], out_w = out_shape[3];
  const int64_t outs_per_group = outs / (channels / per_group);
  const int64_t pad_h = window(height, kh, p.stride_h, p.padding).pad_before;
  const int64_t pad_w = window(width, kw, p.stride_w, p.padding).pad_before;
  TensorOf<A> out(out_shape, ar.zero());
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t o = 0; o < outs; ++o) {
      auto* plane = out.data.data() + (n * outs + o) * out_h * out_w;
      const int64_t first_channel = (o / outs_per_group) * per_group;
      for (int64_t c = 0; c < per_group; ++c) {
        const auto* in = x.data.data() + (n * channels + first_channel + c) * height * width;
        const auto* taps = w.data.data() + (o * per_group + c) * kh * kw;
        for (int64_t r = 0; r < kh; ++r) {
          Range rows = valid_positions(height, out_h, r - pad_h, p.stride_h);
          for (int64_t s = 0; s < kw; ++s) {
            Range cols = valid_positions(width, out_w, s - pad_w, p.stride_w);
            for (int64_t oh = rows.begin; oh < rows.end; ++oh) {
              const auto* src = in + (oh * p.stride_h + r - pad_h) * width;
              accumulate_row(ar, taps[r * kw + s], src, p.stride_w, s - pad_w, plane + oh * out_w, cols);
            }
          }
        }
      }
      if (bias)
        for (int64_t i = 0; i < out_h * out_w; ++i) plane[i] = ar.add(plane[i], (*bias)[o]);
    }
  if (p.activation != Activation::none)
    for (auto& v : out.data) v = activate(ar, p.activation, v);
  return out;
}

// Pads a kernel [O, I, kh, kw] with zeros, centred, to the output's KH x KW.
template <class A>
TensorOf<A> enlarge(const A& ar, const TensorOf<A>& w, const Shape& out_shape) {
  const int64_t planes = w.shape[0] * w.shape[1], kh = w.shape[2], kw = w.shape[3];
  const int64_t big_h = out_shape[2], big_w = out_shape[3];
  const int64_t top = (big_h - kh) / 2, left = (big_w - kw) / 2;
  TensorOf<A> out(out_shape, ar.zero());
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t r = 0; r < kh; ++r)
      for (int64_t s = 0; s < kw; ++s)
        out[(pl * big_h + r + top) * big_w + s + left] = w[(pl * kh + r) * kw + s];
  return out;
}

// A kernel [O, I, kh, kw] of `groups` groups as a kernel of p.into groups: output
// channel o (of old group g = o / (O / groups)) keeps its I input channels at
// block g mod (groups / into) of its new group's I * groups / into, zeros elsewhere.
template <class A>
TensorOf<A> merge_groups(const A& ar, const OpParams& p, const TensorOf<A>& w, const Shape& out_shape) {
  const int64_t outs = w.shape[0], per_group = w.shape[1], taps = w.shape[2] * w.shape[3];
  const int64_t outs_per_group = outs / p.groups, count = p.groups / p.into;
  TensorOf<A> out(out_shape, ar.zero());
  for (int64_t o = 0; o < outs; ++o) {
    const int64_t block = (o / outs_per_group) % count;
    for (int64_t c = 0; c < per_group; ++c)
      for (int64_t t = 0; t < taps; ++t)
        out[((o * count + block) * per_group + c) * taps + t] = w[(o * per_group + c) * taps + t];
  }
  return out;
}

// Calls reduce(plane, width, rows, cols) for every pooling window, clipped to the
// input (padded positions are left out), and collects the results.
template <class V, class Reduce>
Tensor<V> pool(const OpParams& p, const Tensor<V>& x, const Shape& out_shape, Reduce reduce) {
  const int64_t planes = x.shape[0] * x.shape[1], height = x.shape[2], width = x.shape[3];
  const int64_t out_h = out_shape[2], out_w = out_shape[3];
  const int64_t pad_h = window(height, p.kernel_h, p.stride_h, p.padding).pad_before;
  const int64_t pad_w = window(width, p.kernel_w, p.stride_w, p.padding).pad_before;
  std::vector<V> values;
  values.reserve(static_cast<size_t>(out_shape.num_elements()));
  for (int64_t pl = 0; pl < planes; ++pl) {
    const V* plane = x.data.data() + pl * height * width;
    for (int64_t oh = 0; oh < out_h; ++oh) {
      const int64_t top = oh * p.stride_h - pad_h;
      Range rows{std::max<int64_t>(top, 0), std::min<int64_t>(top + p.kernel_h, height)};
      for (int64_t ow = 0; ow < out_w; ++ow) {
        const int64_t left = ow * p.stride_w - pad_w;
        Range cols{std::max<int64_t>(left, 0), std::min<int64_t>(left + p.kernel_w, width)};
        values.push_back(reduce(plane, width, rows, cols));
      }
    }
  }
  return Tensor<V>(out_shape, std::move(values));
}

// Padding counts as zeros and the divisor is always the full window (cuDNN's
// COUNT_INCLUDE_PADDING), so pool_avg equals a depthwise conv2d with C_pool.
template <class A>
TensorOf<A> pool_avg(const A& ar, const OpParams& p, const TensorOf<A>& x, const Shape& out_shape) {
  const int64_t window_size = int64_t{p.kernel_h} * p.kernel_w;
  return pool(p, x, out_shape, [&](const auto* plane, int64_t width, Range rows, Range cols) {
    auto sum = ar.zero();
    for (int64_t r = rows.begin; r < rows.end; ++r)
      for (int64_t c = cols.begin; c < cols.end; ++c) sum = ar.add(sum, plane[r * width + c]);
    return ar.div_int(sum, window_size);
  });
}

// Padded positions are ignored; SAME and VALID windows always overlap the input.
template <class A>
TensorOf<A> pool_max(const A& ar, const OpParams& p, const TensorOf<A>& x, const Shape& out_shape) {
  return pool(p, x, out_shape, [&](const auto* plane, int64_t width, Range rows, Range cols) {
    assert(rows.begin < rows.end && cols.begin < cols.end);
    auto best = plane[rows.begin * width + cols.begin];
    for (int64_t r = rows.begin; r < rows.end; ++r)
      for (int64_t c = cols.begin; c < cols.end; ++c) best = ar.max(best, plane[r * width + c]);
    return best;
  });
}

template <class V>
Tensor<V> concat(int axis, std::span<const Tensor<V>* const> inputs, const Shape& out_shape) {
  const int64_t outer = outer_inner(out_shape, axis).first;
  std::vector<V> values;
  values.reserve(static_cast<size_t>(out_shape.num_elements()));
  for (int64_t o = 0; o < outer; ++o)
    for (const Tensor<V>* in : inputs) {
      const int64_t block = in->size() / outer;  // this input's slice for one outer index
      values.insert(values.end(), in->data.begin() + o * block, in->data.begin() + (o + 1) * block);
    }
  return Tensor<V>(out_shape, std::move(values));
}

// The parts have the sizes of the output descriptors along the axis, in order.
template <class V>
std::vector<Tensor<V>> split(int axis, const Tensor<V>& x, std::span<const TensorDesc> outs) {
  const auto [outer, inner] = outer_inner(x.shape, axis);
  int64_t total = 0;
  for (const TensorDesc& d : outs) total += d.shape[axis];
  if (total != x.shape[axis])
    throw Error("split: parts of sizes summing to " + std::to_string(total) + " do not fill axis " +
                std::to_string(axis) + " of " + x.shape.str());
  std::vector<Tensor<V>> parts;
  int64_t start = 0;  // offset of this part within one outer slice
  for (const TensorDesc& d : outs) {
    const int64_t block = d.shape[axis] * inner;
    std::vector<V> values;
    values.reserve(static_cast<size_t>(outer * block));
    for (int64_t o = 0; o < outer; ++o) {
      auto first = x.data.begin() + o * x.shape[axis] * inner + start;
      values.insert(values.end(), first, first + block);
    }
    parts.emplace_back(d.shape, std::move(values));
    start += block;
  }
  return parts;
}

// y = (x - mean) * (rsqrt(var + epsilon) * scale) + bias, per channel (dimension 1).
template <class A>
TensorOf<A> batchnorm(const A& ar, const OpParams& p, std::span<const TensorOf<A>* const> in) {
  const TensorOf<A>& x = *in[0];
  const TensorOf<A>& scale = *in[1];
  const TensorOf<A>& bias = *in[2];
  const TensorOf<A>& mean = *in[3];
  const TensorOf<A>& var = *in[4];
  const int64_t batch = x.shape[0], channels = x.shape[1], inner = outer_inner(x.shape, 1).second;
  const auto epsilon = ar.constant(p.epsilon);
  TensorOf<A> out = x;
  for (int64_t c = 0; c < channels; ++c) {
    const auto factor = ar.mul(ar.rsqrt(ar.add(var[c], epsilon)), scale[c]);
    for (int64_t n = 0; n < batch; ++n) {
      auto* y = out.data.data() + (n * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i) y[i] = ar.add(ar.mul(ar.sub(y[i], mean[c]), factor), bias[c]);
    }
  }
  return out;
}

// exp(x) / sum exp(x) along the axis. Real arithmetics first subtract the maximum
// (softmax does not change, exp cannot overflow); the others use the definition as is.
template <class A>
TensorOf<A> softmax(const A& ar, int axis, const TensorOf<A>& x) {
  const auto [outer, inner] = outer_inner(x.shape, axis);
  const int64_t length = x.shape[axis];
  TensorOf<A> out = x;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * length * inner + i;
      auto shift = ar.zero();
      if constexpr (A::is_real) {
        shift = x[base];
        for (int64_t j = 1; j < length; ++j) shift = ar.max(shift, x[base + j * inner]);
      }
      auto sum = ar.zero();
      for (int64_t j = 0; j < length; ++j) {
        auto& v = out[base + j * inner];
        if constexpr (A::is_real)
          v = ar.exp(ar.sub(v, shift));
        else
          v = ar.exp(v);
        sum = ar.add(sum, v);
      }
      for (int64_t j = 0; j < length; ++j) out[base + j * inner] = ar.div(out[base + j * inner], sum);
    }
  return out;
}

// A deterministic stand-in for an unknown operator: out[i] = opaque(sum over inputs j of
// in_j[i mod size_j]), or opaque(i) without inputs.
template <class A>
TensorOf<A> opaque(const A& ar, std::span<const TensorOf<A>* const> in, const Shape& out_shape) {
  std::vector<typename A::Value> values;
  values.reserve(static_cast<size_t>(out_shape.num_elements()));
  for (int64_t i = 0; i < out_shape.num_elements(); ++i) {
    auto v = in.empty() ? ar.from_int(i) : (*in[0])[i % in[0]->size()];
    for (size_t j = 1; j < in.size(); ++j) v = ar.add(v, (*in[j])[i % in[j]->size()]);
    values.push_back(ar.opaque(v));
  }
  return TensorOf<A>(out_shape, std::move(values));
}

}  // namespace kernels

// TASO's constant tensors. The shape is checked as the registry checks it.
template <class A>
TensorOf<A> make_constant(const A& ar, OpType op, const Shape& shape) {
  if (!is_constant(op)) throw Error(std::string(op_name(op)) + " is not a constant tensor");
  OpParams p;
  p.shape = shape;
  TensorDesc desc;
  infer_outputs(op, p, {}, std::span(&desc, 1));
  switch (op) {
    case OpType::c_pool:
      return TensorOf<A>(shape, ar.div_int(ar.one(), shape[2] * shape[3]));
    case OpType::i_conv: {
      // The centre tap connects output channel o to the channel of its group at the
      // same position, o mod I: identity for ordinary (I == O) and depthwise (I == 1) kernels.
      const int64_t outs = shape[0], per_group = shape[1], kh = shape[2], kw = shape[3];
      TensorOf<A> t(shape, ar.zero());
      for (int64_t o = 0; o < outs; ++o)
        t[((o * per_group + o % per_group) * kh + kh / 2) * kw + kw / 2] = ar.one();
      return t;
    }
    case OpType::i_matmul: {
      const int64_t n = shape.back(0), matrices = shape.num_elements() / (n * n);
      TensorOf<A> t(shape, ar.zero());
      for (int64_t m = 0; m < matrices; ++m)
        for (int64_t i = 0; i < n; ++i) t[(m * n + i) * n + i] = ar.one();
      return t;
    }
    default:  // i_ewmul
      return TensorOf<A>(shape, ar.one());
  }
}

namespace kernels {

template <class A>
std::vector<TensorOf<A>> single(TensorOf<A>&& t) {
  std::vector<TensorOf<A>> result;
  result.push_back(std::move(t));
  return result;
}

template <class A>
std::vector<TensorOf<A>> dispatch(const A& ar, OpType op, const OpParams& p,
                                  std::span<const TensorOf<A>* const> in, std::span<const TensorDesc> outs) {
  using V = typename A::Value;
  const Shape& shape = outs[0].shape;
  switch (op) {
    case OpType::input:
    case OpType::weight:
      throw Error(std::string(op_name(op)) + ": source values come from the caller, not from run_op");
    case OpType::c_pool:
    case OpType::i_conv:
    case OpType::i_matmul:
    case OpType::i_ewmul:
      return single<A>(make_constant(ar, op, p.shape));
    case OpType::ewadd:
      return single<A>(kernels::broadcast(ar, *in[0], *in[1], shape,
                                          [&](const V& a, const V& b) { return ar.add(a, b); }));
    case OpType::ewmul:
      return single<A>(kernels::broadcast(ar, *in[0], *in[1], shape,
                                          [&](const V& a, const V& b) { return ar.mul(a, b); }));
    case OpType::smul:
      return single<A>(kernels::map(*in[0], [&, s = (*in[1])[0]](const V& v) { return ar.mul(v, s); }));
    case OpType::transpose:
      return single<A>(kernels::transpose(ar, p, *in[0], shape));
    case OpType::matmul:
      return single<A>(kernels::matmul(ar, *in[0], *in[1], shape));
    case OpType::conv2d:
      return single<A>(kernels::conv2d(ar, p, *in[0], *in[1], in.size() > 2 ? in[2] : nullptr, shape));
    case OpType::linear:
      return single<A>(kernels::linear(ar, p, *in[0], *in[1], *in[2], shape));
    case OpType::enlarge:
      return single<A>(kernels::enlarge(ar, *in[0], shape));
    case OpType::merge_groups:
      return single<A>(kernels::merge_groups(ar, p, *in[0], shape));
    case OpType::pool_avg:
      return single<A>(kernels::pool_avg(ar, p, *in[0], shape));
    case OpType::pool_max:
      return single<A>(kernels::pool_max(ar, p, *in[0], shape));
    case OpType::concat:
      return single<A>(kernels::concat<V>(p.axis, in, shape));
    case OpType::split:
      return kernels::split<V>(p.axis, *in[0], outs);
    case OpType::tanh:
      return single<A>(kernels::map(*in[0], [&](const V& v) { return ar.tanh(v); }));
    case OpType::batchnorm:
      return single<A>(kernels::batchnorm(ar, p, in));
    case OpType::reshape:
      return single<A>(TensorOf<A>(shape, in[0]->data));
    case OpType::softmax:
      return single<A>(kernels::softmax(ar, p.axis, *in[0]));
    case OpType::ewsub:
      return single<A>(kernels::broadcast(ar, *in[0], *in[1], shape,
                                          [&](const V& a, const V& b) { return ar.sub(a, b); }));
    case OpType::ewdiv:
      return single<A>(kernels::broadcast(ar, *in[0], *in[1], shape,
                                          [&](const V& a, const V& b) { return ar.div(a, b); }));
    case OpType::sqrt:
      return single<A>(kernels::map(*in[0], [&](const V& v) { return ar.sqrt(v); }));
    case OpType::erf:
      return single<A>(kernels::map(*in[0], [&](const V& v) { return ar.erf(v); }));
    case OpType::exp:
      return single<A>(kernels::map(*in[0], [&](const V& v) { return ar.exp(v); }));
    case OpType::clip:
      return single<A>(kernels::clip(ar, p, *in[0]));
    case OpType::pad:
      return single<A>(kernels::pad(ar, p, *in[0], shape));
    case OpType::slice:
      return single<A>(kernels::slice<V>(p, *in[0], shape));
    case OpType::reduce_mean:
      return single<A>(kernels::reduce_mean(ar, *in[0], shape));
    case OpType::layer_norm:
      return single<A>(kernels::layer_norm(ar, p, *in[0], *in[1], *in[2]));
    case OpType::hardsigmoid:
      return single<A>(kernels::map(*in[0], [&](const V& v) { return ar.hardsigmoid(v); }));
    case OpType::relu:
    case OpType::sigmoid:
    case OpType::hardswish:
    case OpType::silu:
    case OpType::gelu:
    case OpType::relu6: {
      const Activation act = *activation_of(op);
      return single<A>(kernels::map(*in[0], [&](const V& v) { return kernels::activate(ar, act, v); }));
    }
    case OpType::expand:
      return single<A>(kernels::broadcast(ar, *in[0], *in[0], shape, [](const V& a, const V&) { return a; }));
    case OpType::resize:
      return single<A>(kernels::resize(ar, *in[0], shape));
    case OpType::opaque:
      return single<A>(kernels::opaque(ar, in, shape));
  }
  throw Error("unknown operator " + std::to_string(static_cast<int>(op)));
}

}  // namespace kernels

// Runs one operator. output_descs are the operator's output descriptors as
// infer_outputs gives them for these inputs (a graph node's outputs): they fix the
// output shapes, and split's part sizes, which only the split trees know. The
// inputs are trusted to have the shapes those descriptors were inferred from.
template <class A>
std::vector<TensorOf<A>> run_op(const A& ar, OpType op, const OpParams& p,
                                std::span<const TensorOf<A>* const> inputs,
                                std::span<const TensorDesc> output_descs) {
  const OpInfo& info = op_info(op);
  if (static_cast<int>(inputs.size()) < info.min_inputs ||
      static_cast<int>(inputs.size()) > info.max_inputs ||
      static_cast<int>(output_descs.size()) != info.num_outputs)
    throw Error(std::string(op_name(op)) + ": run with " + std::to_string(inputs.size()) + " inputs and " +
                std::to_string(output_descs.size()) + " outputs");
  return kernels::dispatch(ar, op, p, inputs, output_descs);
}

// Runs one operator on loose tensors, inferring the outputs from the input shapes
// (throws Error when they do not fit). Split needs split trees, so it fails here:
// run it with output descriptors or in a Graph.
template <class A>
std::vector<TensorOf<A>> run_op(const A& ar, OpType op, const OpParams& p,
                                std::span<const TensorOf<A>* const> inputs) {
  if (inputs.size() > kMaxInputs)
    throw Error(std::string(op_name(op)) + ": more than " + std::to_string(kMaxInputs) + " inputs");
  std::array<TensorDesc, kMaxInputs> in{};
  std::array<const TensorDesc*, kMaxInputs> in_ptrs{};
  for (size_t i = 0; i < inputs.size(); ++i) {
    in[i].shape = inputs[i]->shape;
    in_ptrs[i] = &in[i];
  }
  std::array<TensorDesc, kMaxOutputs> out{};
  const size_t num_outputs = static_cast<size_t>(op_info(op).num_outputs);
  infer_outputs(op, p, std::span(in_ptrs.data(), inputs.size()), std::span(out.data(), num_outputs));
  return run_op(ar, op, p, inputs, std::span<const TensorDesc>(out.data(), num_outputs));
}

}  // namespace superopt
