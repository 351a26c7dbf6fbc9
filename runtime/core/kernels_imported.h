// Reference kernels of the operators only imported models use (pad, slice,
// reduce_mean, clip), templated over the arithmetic like every kernel. Included
// by kernels.h, which dispatches to them.
#pragma once

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
