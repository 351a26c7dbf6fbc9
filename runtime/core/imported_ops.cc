// Shape inference of pad, slice, reduce_mean, layer_norm, expand and resize. Split
// trees survive only along the dimensions an operator leaves alone.
#include "runtime/core/imported_ops.h"

#include <limits>

namespace superopt {
namespace {

using registry_detail::fail;

bool infer_pad(const OpParams& p, std::span<const TensorDesc* const> in, TensorDesc& out, ShapeCheck& c) {
  const Shape& x = in[0]->shape;
  if (x.rank() < 2) return fail(c, "input must have rank 2 or more");
  for (int32_t d : p.pads)
    if (d < 0) return fail(c, "pads must not be negative");
  out = *in[0];
  const int64_t h = x.back(1) + p.pads[0] + p.pads[1], w = x.back(0) + p.pads[2] + p.pads[3];
  if (h > std::numeric_limits<int32_t>::max() || w > std::numeric_limits<int32_t>::max())
    return fail(c, "result too large");
  out.shape.set(x.rank() - 2, h);
  out.shape.set(x.rank() - 1, w);
  if (p.pads[0] || p.pads[1]) out.set_split(x.rank() - 2, SplitTree{});
  if (p.pads[2] || p.pads[3]) out.set_split(x.rank() - 1, SplitTree{});
  return true;
}

bool infer_slice(const OpParams& p, std::span<const TensorDesc* const> in, TensorDesc& out, ShapeCheck& c) {
  const Shape& x = in[0]->shape;
  if (p.axis < 0 || p.axis >= x.rank())
    return fail(c, "axis " + std::to_string(p.axis) + " out of range for rank " + std::to_string(x.rank()));
  if (p.begin < 0 || p.end > x[p.axis] || p.begin >= p.end)
    return fail(c, "range [" + std::to_string(p.begin) + ", " + std::to_string(p.end) +
                       ") is empty or outside axis " + std::to_string(p.axis));
  out = *in[0];
  out.shape.set(p.axis, p.end - p.begin);
  out.set_split(p.axis, SplitTree{});
  return true;
}

bool infer_reduce_mean(const OpParams& p, std::span<const TensorDesc* const> in, TensorDesc& out,
                       ShapeCheck& c) {
  const Shape& x = in[0]->shape;
  if (p.axes == 0 || p.axes >> x.rank())
    return fail(c, "axes must name at least one of the input's dimensions");
  out = *in[0];
  for (int i = 0; i < x.rank(); ++i)
    if (p.axes & (1u << i)) {
      out.shape.set(i, 1);
      out.set_split(i, SplitTree{});
    }
  return true;
}

// Scale and bias have the normalized dimensions' shape (ONNX allows them
// unidirectionally broadcast; the importer gives them that shape).
bool infer_layer_norm(const OpParams& p, std::span<const TensorDesc* const> in, TensorDesc& out,
                      ShapeCheck& c) {
  const Shape& x = in[0]->shape;
  if (p.axis < 0 || p.axis >= x.rank())
    return fail(c, "axis " + std::to_string(p.axis) + " out of range for rank " + std::to_string(x.rank()));
  Shape normalized;
  for (int i = p.axis; i < x.rank(); ++i) normalized.push_back(x[i]);
  if (in[1]->shape != normalized || in[2]->shape != normalized)
    return fail(c, "scale and bias must have shape " + normalized.str());
  out = *in[0];
  return true;
}

// NumPy broadcasting of the input to the target, which must be the result.
bool infer_expand(const OpParams& p, std::span<const TensorDesc* const> in, TensorDesc& out, ShapeCheck& c) {
  const Shape& x = in[0]->shape;
  if (!p.shape.all_positive() || p.shape.rank() < x.rank())
    return fail(c, "cannot expand to " + p.shape.str());
  const int shift = p.shape.rank() - x.rank();
  for (int i = 0; i < x.rank(); ++i)
    if (x[i] != 1 && x[i] != p.shape[i + shift]) return fail(c, "cannot expand to " + p.shape.str());
  out.shape = p.shape;
  return true;
}

bool infer_resize(const OpParams& p, std::span<const TensorDesc* const> in, TensorDesc& out, ShapeCheck& c) {
  const Shape& x = in[0]->shape;
  if (x.rank() < 3 || p.shape.rank() != x.rank() || !p.shape.all_positive())
    return fail(c, "target " + p.shape.str() + " must be the input's rank (3 or more) and positive");
  for (int i = 0; i + 2 < x.rank(); ++i)
    if (p.shape[i] != x[i]) return fail(c, "only the last two dimensions may change size");
  out.shape = p.shape;
  SplitTrees trees{};
  for (int i = 0; i + 2 < x.rank(); ++i) trees[i] = in[0]->split(i);
  out.set_splits(trees);
  return true;
}

}  // namespace

bool infer_reshaping_import(OpType op, const OpParams& p, std::span<const TensorDesc* const> in,
                            TensorDesc& out, ShapeCheck& c) {
  switch (op) {
    case OpType::pad:
      return infer_pad(p, in, out, c);
    case OpType::slice:
      return infer_slice(p, in, out, c);
    case OpType::layer_norm:
      return infer_layer_norm(p, in, out, c);
    case OpType::expand:
      return infer_expand(p, in, out, c);
    case OpType::resize:
      return infer_resize(p, in, out, c);
    default:
      return infer_reduce_mean(p, in, out, c);
  }
}

}  // namespace superopt
