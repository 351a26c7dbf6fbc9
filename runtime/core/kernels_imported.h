// Reference kernels of the operators only imported models use (pad, slice,
// reduce_mean, clip, gelu, layer_norm, resize), templated over the arithmetic like every kernel.
// Included by kernels.h, which dispatches to them.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/core/operator_registry.h"
#include "runtime/core/tensor.h"

namespace superopt::kernels {

// Copies x into the middle of a larger tensor of p.value along the last two dimensions.
template <class A>
Tensor<typename A::Value> pad(const A& ar, const OpParams& p, const Tensor<typename A::Value>& x,
                              const Shape& out_shape) {
  const int rank = x.shape.rank();
  const int64_t h = x.shape[rank - 2], w = x.shape[rank - 1];
  const int64_t big_h = out_shape[rank - 2], big_w = out_shape[rank - 1];
  const int64_t planes = x.shape.num_elements() / (h * w);
  Tensor<typename A::Value> out(out_shape, ar.constant(p.value));
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t r = 0; r < h; ++r)
      for (int64_t c = 0; c < w; ++c)
        out[(pl * big_h + r + p.pads[0]) * big_w + c + p.pads[2]] = x[(pl * h + r) * w + c];
  return out;
}

// Elements [p.begin, p.end) along p.axis.
template <class V>
Tensor<V> slice(const OpParams& p, const Tensor<V>& x, const Shape& out_shape) {
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < p.axis; ++i) outer *= x.shape[i];
  for (int i = p.axis + 1; i < x.shape.rank(); ++i) inner *= x.shape[i];
  const int64_t length = x.shape[p.axis];
  std::vector<V> values;
  values.reserve(static_cast<size_t>(out_shape.num_elements()));
  for (int64_t o = 0; o < outer; ++o) {
    auto first = x.data.begin() + (o * length + p.begin) * inner;
    values.insert(values.end(), first, first + (p.end - p.begin) * inner);
  }
  return Tensor<V>(out_shape, std::move(values));
}

// The sum over the reduced dimensions, in row-major order, divided by their count.
template <class A>
Tensor<typename A::Value> reduce_mean(const A& ar, const Tensor<typename A::Value>& x,
                                      const Shape& out_shape) {
  Tensor<typename A::Value> sum(out_shape, ar.zero());
  const Strides out = row_major_strides(out_shape);
  std::array<int64_t, kMaxRank> index{};
  const int rank = x.shape.rank();
  for (int64_t i = 0; i < x.size(); ++i) {
    int64_t o = 0;
    for (int d = 0; d < rank; ++d) o += (out_shape[d] == 1 ? 0 : index[d]) * out[d];
    sum[o] = ar.add(sum[o], x[i]);
    for (int d = rank - 1; d >= 0 && ++index[d] == x.shape[d]; --d) index[d] = 0;
  }
  const int64_t count = x.size() / out_shape.num_elements();
  for (auto& v : sum.data) v = ar.div_int(v, count);
  return sum;
}

// Infinite bounds do not clamp (and have no image in the exact arithmetics).
template <class A>
Tensor<typename A::Value> clip(const A& ar, const OpParams& p, const Tensor<typename A::Value>& x) {
  Tensor<typename A::Value> out = x;
  const bool has_lo = std::isfinite(p.lo), has_hi = std::isfinite(p.hi);
  const auto lo = ar.constant(has_lo ? p.lo : 0), hi = ar.constant(has_hi ? p.hi : 0);
  for (auto& v : out.data) {
    if (has_lo) v = ar.max(v, lo);
    if (has_hi) v = ar.min(v, hi);
  }
  return out;
}

}  // namespace superopt::kernels

namespace superopt::kernels {

// PyTorch's exact GELU, in its order of operations: x / 2 * (1 + erf(x / sqrt(2))).
template <class A>
typename A::Value gelu(const A& ar, const typename A::Value& x) {
  const auto half = ar.div_int(ar.one(), 2);
  const auto inv_sqrt2 = ar.div(ar.one(), ar.sqrt(ar.from_int(2)));
  return ar.mul(ar.mul(x, half), ar.add(ar.one(), ar.erf(ar.mul(x, inv_sqrt2))));
}

// Over each row of the dimensions from p.axis on: (x - mean) / sqrt(var + epsilon)
// * scale + bias, with the biased variance (ONNX's and PyTorch's LayerNorm).
template <class A>
Tensor<typename A::Value> layer_norm(const A& ar, const OpParams& p, const Tensor<typename A::Value>& x,
                                     const Tensor<typename A::Value>& scale,
                                     const Tensor<typename A::Value>& bias) {
  const int64_t row = scale.size(), rows = x.size() / row;
  const auto epsilon = ar.constant(p.epsilon);
  Tensor<typename A::Value> out = x;
  for (int64_t r = 0; r < rows; ++r) {
    auto* y = out.data.data() + r * row;
    auto mean = ar.zero();
    for (int64_t i = 0; i < row; ++i) mean = ar.add(mean, y[i]);
    mean = ar.div_int(mean, row);
    auto var = ar.zero();
    for (int64_t i = 0; i < row; ++i) {
      y[i] = ar.sub(y[i], mean);
      var = ar.add(var, ar.mul(y[i], y[i]));
    }
    const auto factor = ar.rsqrt(ar.add(ar.div_int(var, row), epsilon));
    for (int64_t i = 0; i < row; ++i) y[i] = ar.add(ar.mul(ar.mul(y[i], factor), scale[i]), bias[i]);
  }
  return out;
}

// One output position's two input taps and the second one's weight, as
// PyTorch's bilinear resize (align_corners=False) finds them: the source
// coordinate (o + 1/2) * in / out - 1/2, clamped at 0, kept as the exact
// fraction num / den so that every arithmetic gets the same weights.
struct LinearTaps {
  int64_t first = 0, second = 0, num = 0, den = 1;
};
inline LinearTaps linear_taps(int64_t o, int64_t in, int64_t out) {
  LinearTaps t;
  t.den = 2 * out;
  const int64_t source = std::max<int64_t>((2 * o + 1) * in - out, 0);
  t.first = source / t.den;
  t.num = source - t.first * t.den;
  t.second = t.first + (t.first < in - 1 ? 1 : 0);
  return t;
}

// Bilinear resize of the last two dimensions to out_shape.
template <class A>
Tensor<typename A::Value> resize(const A& ar, const Tensor<typename A::Value>& x, const Shape& out_shape) {
  const int rank = x.shape.rank();
  const int64_t h = x.shape[rank - 2], w = x.shape[rank - 1];
  const int64_t big_h = out_shape[rank - 2], big_w = out_shape[rank - 1];
  const int64_t planes = x.shape.num_elements() / (h * w);
  std::vector<LinearTaps> cols;
  for (int64_t c = 0; c < big_w; ++c) cols.push_back(linear_taps(c, w, big_w));
  auto weight = [&](int64_t num, int64_t den) { return ar.div_int(ar.from_int(num), den); };
  Tensor<typename A::Value> out(out_shape, ar.zero());
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t r = 0; r < big_h; ++r) {
      const LinearTaps rt = linear_taps(r, h, big_h);
      const auto* top = x.data.data() + (pl * h + rt.first) * w;
      const auto* bottom = x.data.data() + (pl * h + rt.second) * w;
      const auto down = weight(rt.num, rt.den), up = weight(rt.den - rt.num, rt.den);
      for (int64_t c = 0; c < big_w; ++c) {
        const LinearTaps& ct = cols[c];
        const auto right = weight(ct.num, ct.den), left = weight(ct.den - ct.num, ct.den);
        const auto upper = ar.add(ar.mul(top[ct.first], left), ar.mul(top[ct.second], right));
        const auto lower = ar.add(ar.mul(bottom[ct.first], left), ar.mul(bottom[ct.second], right));
        out[(pl * big_h + r) * big_w + c] = ar.add(ar.mul(upper, up), ar.mul(lower, down));
      }
    }
  return out;
}

}  // namespace superopt::kernels
