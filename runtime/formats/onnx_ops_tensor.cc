// ONNX operators on tensors that map onto our element-wise, reshaping and
// reduction operators: Add, Sub, Mul, Div, Pow, Relu, Sigmoid, Tanh, Erf, Sqrt,
// Clip (relu for [0, inf)), Max(x, 0) as relu, Identity, Dropout, Cast, Shape, Reshape, Flatten, Squeeze,
// Unsqueeze, Transpose, Concat, Split, Slice, Pad, Softmax, ReduceMean.
#include <algorithm>
#include <cmath>

#include "runtime/core/error.h"
#include "runtime/formats/onnx_importer.h"

namespace superopt::onnx_import {
namespace {

using onnx::NodeProto;

TensorRef reshape(Importer& im, TensorRef x, const std::vector<int64_t>& dims, const std::string& name = {}) {
  OpParams p;
  p.shape = shape_of(dims);
  return im.emit(OpType::reshape, {x}, p, name);
}

Mapper unary(OpType op) {
  return [op](Importer& im, const NodeProto& n) {
    im.set_output(n, 0, im.emit(op, {im.tensor_input(n, 0)}, {}, n.output(0)));
  };
}

Mapper binary(OpType op) {
  return [op](Importer& im, const NodeProto& n) {
    TensorRef a = im.tensor_input(n, 0), b = im.tensor_input(n, 1);
    im.set_output(n, 0, im.emit(op, {a, b}, {}, n.output(0)));
  };
}

void alias(Importer& im, const NodeProto& n) {
  im.bind(n.output(0), im.input(n, 0));
}

void map_dropout(Importer& im, const NodeProto& n) {
  // A ratio of 0 drops nothing even in training mode (Swin's attention dropout,
  // exported with TrainingMode.PRESERVE).
  const Constant* ratio = im.has_input(n, 1) ? im.constant_input(n, 1) : nullptr;
  const bool drops = ratio ? ratio->size() != 1 || ratio->at(0) != 0 : attr_float(n, "ratio", 0.5f) != 0;
  if (drops && (attr_int(n, "training_mode", 0) ||
                (im.has_input(n, 2) && im.constant_input(n, 2) && im.constant_input(n, 2)->at(0) != 0)))
    throw Error("dropout in training mode is not supported (inference only)");
  alias(im, n);  // a mask output, if any, stays unbound: reading it fails as unproduced
}

void map_cast(Importer& im, const NodeProto& n) {
  const int64_t to = attr_int(n, "to", 0);
  if (to != onnx::TensorProto::FLOAT && to != onnx::TensorProto::DOUBLE)
    throw Error("casting a computed tensor to a non-real type is not supported");
  alias(im, n);
}

void map_shape(Importer& im, const NodeProto& n) {
  std::vector<int64_t> dims = im.input_dims(n, 0);
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t start = attr_int(n, "start", 0), end = attr_int(n, "end", rank);
  slice_bounds(rank, 1, start, end);
  std::vector<int64_t> part(dims.begin() + start, dims.begin() + std::max(start, end));
  im.set_output(n, 0, Constant::integers({static_cast<int64_t>(part.size())}, part));
}

void map_pow(Importer& im, const NodeProto& n) {
  const Constant* e = im.constant_input(n, 1);
  if (!e || e->size() != 1) throw Error("only a constant scalar exponent is supported");
  const double exponent = e->at(0);
  TensorRef x = im.tensor_input(n, 0);
  if (exponent == 1) return im.set_output(n, 0, x);
  if (exponent == 2) return im.set_output(n, 0, im.emit(OpType::ewmul, {x, x}, {}, n.output(0)));
  if (exponent == 0.5) return im.set_output(n, 0, im.emit(OpType::sqrt, {x}, {}, n.output(0)));
  throw Error("exponent " + std::to_string(exponent) + " is not supported (1, 2 and 0.5 are)");
}

float bound(const Importer& im, const NodeProto& n, int i, const std::string& attr, float fallback) {
  if (im.has_input(n, i)) {
    const Constant* c = im.constant_input(n, i);
    if (!c || c->size() != 1) throw Error("clip bounds must be constant scalars");
    return static_cast<float>(c->at(0));
  }
  return attr_float(n, attr, fallback);
}

void map_clip(Importer& im, const NodeProto& n) {
  OpParams p;
  p.lo = bound(im, n, 1, "min", -INFINITY);
  p.hi = bound(im, n, 2, "max", INFINITY);
  // Clip(x, 0, inf) is relu and Clip(x, 0, 6) relu6 (canonicalization: the rules and the
  // executor's fusions know them).
  if (p.lo == 0.0f && p.hi == INFINITY)
    return im.set_output(n, 0, im.emit(OpType::relu, {im.tensor_input(n, 0)}, {}, n.output(0)));
  if (p.lo == 0.0f && p.hi == 6.0f) {
    // PyTorch exports ReLU6 as Relu then Clip(0, 6); relu6 alone is the same function (an unread
    // relu is dropped at the end of the import).
    TensorRef x = im.tensor_input(n, 0);
    if (const Node& r = im.graph().node(x.node); r.op == OpType::relu) x = r.inputs()[0];
    return im.set_output(n, 0, im.emit(OpType::relu6, {x}, {}, n.output(0)));
  }
  im.set_output(n, 0, im.emit(OpType::clip, {im.tensor_input(n, 0)}, p, n.output(0)));
}

void map_reshape(Importer& im, const NodeProto& n) {
  std::vector<int64_t> in = im.input_dims(n, 0);
  const Constant* shape = im.constant_input(n, 1);
  if (!shape) throw Error("the target shape must be known at import");
  std::vector<int64_t> dims = as_ints(*shape, "shape");
  int64_t known = 1, infer = -1, total = 1;
  for (int64_t d : in) total *= d;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] == 0 && !attr_int(n, "allowzero", 0)) {
      if (k >= in.size()) throw Error("shape entry 0 has no input dimension to copy");
      dims[k] = in[k];
    }
    if (dims[k] == -1) {
      if (infer >= 0) throw Error("more than one -1 in the shape");
      infer = static_cast<int64_t>(k);
    } else {
      known *= dims[k];
    }
  }
  if (infer >= 0) {
    if (known <= 0 || total % known) throw Error("cannot infer the -1 dimension");
    dims[infer] = total / known;
  }
  im.set_output(n, 0, reshape(im, im.tensor_input(n, 0), dims, n.output(0)));
}

void map_flatten(Importer& im, const NodeProto& n) {
  std::vector<int64_t> in = im.input_dims(n, 0);
  const int rank = static_cast<int>(in.size());
  int64_t axis = attr_int(n, "axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) throw Error("axis out of range");
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < rank; ++k) (k < axis ? outer : inner) *= in[k];
  im.set_output(n, 0, reshape(im, im.tensor_input(n, 0), {outer, inner}, n.output(0)));
}

void map_squeeze(Importer& im, const NodeProto& n) {
  std::vector<int64_t> in = im.input_dims(n, 0);
  const int rank = static_cast<int>(in.size());
  std::optional<std::vector<int64_t>> axes = ints_from(im, n, 1, "axes");
  std::vector<int64_t> dims;
  for (int k = 0; k < rank; ++k) {
    bool drop = !axes ? in[k] == 1 : std::any_of(axes->begin(), axes->end(), [&](int64_t a) {
      return normalize_axis(a, rank) == k;
    });
    if (drop && in[k] != 1)
      throw Error("cannot squeeze dimension " + std::to_string(k) + " of size " + std::to_string(in[k]));
    if (!drop) dims.push_back(in[k]);
  }
  im.set_output(n, 0, reshape(im, im.tensor_input(n, 0), dims, n.output(0)));
}

void map_unsqueeze(Importer& im, const NodeProto& n) {
  std::vector<int64_t> dims = im.input_dims(n, 0);
  std::vector<int64_t> axes = ints_from(im, n, 1, "axes").value_or(std::vector<int64_t>{});
  const int rank = static_cast<int>(dims.size() + axes.size());
  for (int64_t& a : axes) a = normalize_axis(a, rank);
  std::sort(axes.begin(), axes.end());
  for (int64_t a : axes) dims.insert(dims.begin() + a, 1);
  im.set_output(n, 0, reshape(im, im.tensor_input(n, 0), dims, n.output(0)));
}

void map_transpose(Importer& im, const NodeProto& n) {
  const int rank = im.input_rank(n, 0);
  std::vector<int64_t> perm = attr_ints(n, "perm").value_or(std::vector<int64_t>{});
  OpParams p;
  if (!perm.empty()) {
    if (static_cast<int>(perm.size()) != rank) throw Error("perm does not match the input's rank");
    for (int k = 0; k < rank; ++k) p.perm[k] = static_cast<int8_t>(normalize_axis(perm[k], rank));
  }
  im.set_output(n, 0, im.emit(OpType::transpose, {im.tensor_input(n, 0)}, p, n.output(0)));
}

void map_concat(Importer& im, const NodeProto& n) {
  OpParams p;
  p.axis = normalize_axis(attr_int(n, "axis", 0), im.input_rank(n, 0));
  std::vector<TensorRef> inputs;
  for (int i = 0; i < n.input_size(); ++i) inputs.push_back(im.tensor_input(n, i));
  if (inputs.size() == 1) return im.set_output(n, 0, inputs[0]);
  im.set_output(n, 0, im.emit(OpType::concat, inputs, p, n.output(0)));
}

// Elements [begin, end) of x along an axis; x itself when that is all of it.
TensorRef slice(Importer& im, TensorRef x, int axis, int64_t begin, int64_t end, const std::string& name) {
  if (begin == 0 && end == im.graph().shape(x)[axis]) return x;
  OpParams p;
  p.axis = axis;
  p.begin = static_cast<int32_t>(begin);
  p.end = static_cast<int32_t>(end);
  return im.emit(OpType::slice, {x}, p, name);
}

void map_split(Importer& im, const NodeProto& n) {
  std::vector<int64_t> in = im.input_dims(n, 0);
  const int axis = normalize_axis(attr_int(n, "axis", 0), static_cast<int>(in.size()));
  std::vector<int64_t> sizes = ints_from(im, n, 1, "split").value_or(std::vector<int64_t>{});
  if (sizes.empty()) {
    const int parts = n.output_size();
    if (in[axis] % parts) throw Error("axis of size " + std::to_string(in[axis]) + " does not split evenly");
    sizes.assign(parts, in[axis] / parts);
  }
  if (static_cast<int>(sizes.size()) != n.output_size()) throw Error("split sizes do not match the outputs");
  TensorRef x = im.tensor_input(n, 0);
  int64_t begin = 0;
  for (int k = 0; k < n.output_size(); ++k) {
    if (sizes[k] <= 0) throw Error("split sizes must be positive");
    im.set_output(n, k, slice(im, x, axis, begin, begin + sizes[k], n.output(k)));
    begin += sizes[k];
  }
  if (begin != in[axis]) throw Error("split sizes do not add up to the axis");
}

// Every step-th element of [s, e) along an axis whose length the step divides
// (Swin's patch merging, x[..., 0::2, 0::2, :]): the axis viewed as [blocks,
// step], one position of the step, the blocks that hold the range.
TensorRef strided_slice(Importer& im, TensorRef x, int axis, int64_t s, int64_t e, int64_t step) {
  Shape dims = im.graph().shape(x);
  if (step < 1 || dims[axis] % step || dims.rank() == kMaxRank)
    throw Error("steps other than 1 are supported on a computed tensor only when they divide the axis");
  std::vector<int64_t> split;
  for (int k = 0; k < dims.rank(); ++k)
    if (k == axis) {
      split.push_back(dims[k] / step);
      split.push_back(step);
    } else {
      split.push_back(dims[k]);
    }
  const int64_t count = (e - s + step - 1) / step;
  TensorRef y = reshape(im, x, split);
  y = slice(im, y, axis + 1, s % step, s % step + 1, {});
  y = slice(im, y, axis, s / step, s / step + count, {});
  std::vector<int64_t> out;
  for (int k = 0; k < dims.rank(); ++k) out.push_back(k == axis ? count : dims[k]);
  return reshape(im, y, out);
}

void map_slice(Importer& im, const NodeProto& n) {
  std::vector<int64_t> in = im.input_dims(n, 0);
  const int rank = static_cast<int>(in.size());
  const auto [starts, ends, axes, steps] = slice_args(im, n);
  TensorRef x = im.tensor_input(n, 0);
  for (size_t k = 0; k < starts.size(); ++k) {
    if (steps[k] < 1) throw Error("negative steps on a computed tensor are not supported");
    const int a = normalize_axis(axes[k], rank);
    int64_t s = starts[k], e = ends[k];
    slice_bounds(in[a], steps[k], s, e);
    if (s >= e) throw Error("the slice is empty");
    const std::string name = k + 1 == starts.size() ? n.output(0) : std::string();
    x = steps[k] == 1 ? slice(im, x, a, s, e, name) : strided_slice(im, x, a, s, e, steps[k]);
  }
  im.set_output(n, 0, x);
}

void map_pad(Importer& im, const NodeProto& n) {
  if (attr_string(n, "mode", "constant") != "constant") throw Error("only constant padding is supported");
  const std::vector<int64_t> pads =
      checked_int32(ints_from(im, n, 1, "pads").value_or(std::vector<int64_t>{}), "Pad's pads");
  const int rank = im.input_rank(n, 0);
  if (static_cast<int>(pads.size()) != 2 * rank) throw Error("pads must have two entries per dimension");
  if (im.has_input(n, 3)) throw Error("the axes input is not supported");
  OpParams p;
  if (im.has_input(n, 2)) {
    const Constant* v = im.constant_input(n, 2);
    if (!v || v->size() != 1) throw Error("the pad value must be a constant scalar");
    p.value = static_cast<float>(v->at(0));
  }
  for (int k = 0; k < rank; ++k) {
    const int64_t before = pads[k], after = pads[k + rank];
    if (before < 0 || after < 0) throw Error("negative pads are not supported");
    if (k < rank - 2 && (before || after)) throw Error("only the last two dimensions may be padded");
  }
  if (rank < 2) throw Error("only the last two dimensions of a tensor of rank 2 or more may be padded");
  p.pads = {static_cast<int32_t>(pads[rank - 2]), static_cast<int32_t>(pads[2 * rank - 2]),
            static_cast<int32_t>(pads[rank - 1]), static_cast<int32_t>(pads[2 * rank - 1])};
  im.set_output(n, 0, im.emit(OpType::pad, {im.tensor_input(n, 0)}, p, n.output(0)));
}

// Opset 13 normalises along one axis; before that, over the dimensions from the
// axis on, flattened (the same when the axis is the last one).
void map_softmax(Importer& im, const NodeProto& n) {
  std::vector<int64_t> in = im.input_dims(n, 0);
  const int rank = static_cast<int>(in.size());
  const int axis = normalize_axis(attr_int(n, "axis", im.opset() >= 13 ? -1 : 1), rank);
  TensorRef x = im.tensor_input(n, 0);
  OpParams p;
  if (im.opset() >= 13 || axis == rank - 1) {
    p.axis = axis;
    return im.set_output(n, 0, im.emit(OpType::softmax, {x}, p, n.output(0)));
  }
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < rank; ++k) (k < axis ? outer : inner) *= in[k];
  p.axis = 1;
  TensorRef flat = im.emit(OpType::softmax, {reshape(im, x, {outer, inner})}, p);
  im.set_output(n, 0, reshape(im, flat, in, n.output(0)));
}

void map_reduce_mean(Importer& im, const NodeProto& n) {
  std::vector<int64_t> in = im.input_dims(n, 0);
  const int rank = static_cast<int>(in.size());
  std::vector<int64_t> axes = attr_ints(n, "axes").value_or(std::vector<int64_t>{});
  if (axes.empty())
    for (int k = 0; k < rank; ++k) axes.push_back(k);
  OpParams p;
  for (int64_t a : axes) p.axes |= static_cast<uint8_t>(1u << normalize_axis(a, rank));
  const bool keep = attr_int(n, "keepdims", 1) != 0;
  TensorRef mean = im.emit(OpType::reduce_mean, {im.tensor_input(n, 0)}, p, keep ? n.output(0) : "");
  if (!keep) {
    std::vector<int64_t> dims;
    for (int k = 0; k < rank; ++k)
      if (!(p.axes & (1u << k))) dims.push_back(in[k]);
    mean = reshape(im, mean, dims, n.output(0));
  }
  im.set_output(n, 0, mean);
}

// Max(x, 0) or Max(0, x) with a scalar 0 is relu; no other Max is mapped.
void map_max(Importer& im, const NodeProto& n) {
  for (int k = 0; k < 2 && n.input_size() == 2; ++k) {
    const Constant* zero = im.constant_input(n, 1 - k);
    if (zero && zero->size() == 1 && zero->at(0) == 0.0 && !im.constant_input(n, k))
      return im.set_output(n, 0, im.emit(OpType::relu, {im.tensor_input(n, k)}, {}, n.output(0)));
  }
  throw Error("only Max(x, 0) (relu) is supported");
}

}  // namespace

void add_tensor_mappers(MapperTable& t) {
  t["Relu"] = unary(OpType::relu);
  t["Sigmoid"] = unary(OpType::sigmoid);
  t["Tanh"] = unary(OpType::tanh);
  t["Erf"] = unary(OpType::erf);
  t["Sqrt"] = unary(OpType::sqrt);
  t["Exp"] = unary(OpType::exp);
  t["Add"] = binary(OpType::ewadd);
  t["Sub"] = binary(OpType::ewsub);
  t["Mul"] = binary(OpType::ewmul);
  t["Div"] = binary(OpType::ewdiv);
  t["Pow"] = map_pow;
  t["Clip"] = map_clip;
  t["Max"] = map_max;
  t["Identity"] = alias;
  t["Dropout"] = map_dropout;
  t["Cast"] = map_cast;
  t["Shape"] = map_shape;
  t["Reshape"] = map_reshape;
  t["Flatten"] = map_flatten;
  t["Squeeze"] = map_squeeze;
  t["Unsqueeze"] = map_unsqueeze;
  t["Transpose"] = map_transpose;
  t["Concat"] = map_concat;
  t["Split"] = map_split;
  t["Slice"] = map_slice;
  t["Pad"] = map_pad;
  t["Softmax"] = map_softmax;
  t["ReduceMean"] = map_reduce_mean;
}

}  // namespace superopt::onnx_import
