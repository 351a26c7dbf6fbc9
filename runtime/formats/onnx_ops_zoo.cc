// ONNX operators the torchvision zoo brought (issue 36): LayerNormalization,
// HardSigmoid, HardSwish, Expand, Resize (bilinear, as PyTorch's interpolate
// with align_corners=False exports it), Gather from a computed tensor and ReduceL2.
#include <cmath>

#include "runtime/core/error.h"
#include "runtime/formats/onnx_importer.h"

namespace superopt::onnx_import {
namespace {

using onnx::NodeProto;

// Input i as a weight or tensor of the given dims: a constant is broadcast to
// them now (ONNX lets scale and bias broadcast); a computed tensor must have them.
TensorRef operand_of_dims(Importer& im, const NodeProto& n, int i, const std::vector<int64_t>& dims,
                          const std::string& what) {
  const Value& v = im.input(n, i);
  if (v.constant) {
    Constant zero = Constant::real(dims, std::vector<float>(size_t(shape_of(dims).num_elements()), 0.0f));
    if (broadcast_dims(v.constant->dims, dims) != dims)
      throw Error(what + " does not broadcast to the input");
    Constant full = broadcast_apply(zero, *v.constant, [](double, double b) { return b; });
    std::vector<float> reals(full.reals.begin(), full.reals.end());
    if (!full.is_real) throw Error(what + " holds integers");
    return im.weight(Constant::real(dims, std::move(reals)), n.input(i));
  }
  if (im.input_dims(n, i) != dims) throw Error(what + " computed at run time must have the normalized shape");
  return im.tensor_input(n, i);
}

void map_layer_norm(Importer& im, const NodeProto& n) {
  for (int k = 1; k < n.output_size(); ++k)
    if (!n.output(k).empty()) throw Error("the Mean and InvStdDev outputs are not supported");
  const std::vector<int64_t> x = im.input_dims(n, 0);
  const int rank = static_cast<int>(x.size());
  OpParams p;
  p.axis = normalize_axis(attr_int(n, "axis", -1), rank);
  p.epsilon = attr_float(n, "epsilon", 1e-5f);
  const std::vector<int64_t> normalized(x.begin() + p.axis, x.end());
  TensorRef scale = operand_of_dims(im, n, 1, normalized, "scale");
  TensorRef bias =
      im.has_input(n, 2)
          ? operand_of_dims(im, n, 2, normalized, "bias")
          : im.weight(Constant::real(normalized,
                                     std::vector<float>(size_t(shape_of(normalized).num_elements()), 0.0f)),
                      n.output(0) + "_bias");
  im.set_output(n, 0, im.emit(OpType::layer_norm, {im.tensor_input(n, 0), scale, bias}, p, n.output(0)));
}

// PyTorch exports its hardsigmoid with alpha = 1/6 rounded to float32; that
// attribute is read as 1/6 exactly, as PyTorch computes it. Other slopes become
// x * alpha + beta clipped to [0, 1].
void map_hardsigmoid(Importer& im, const NodeProto& n) {
  const float alpha = attr_float(n, "alpha", 0.2f), beta = attr_float(n, "beta", 0.5f);
  TensorRef x = im.tensor_input(n, 0);
  if (alpha == static_cast<float>(1.0 / 6.0) && beta == 0.5f)
    return im.set_output(n, 0, im.emit(OpType::hardsigmoid, {x}, {}, n.output(0)));
  TensorRef y = im.emit(OpType::ewmul, {x, im.weight(Constant::real({}, {alpha}), n.output(0) + "_alpha")});
  y = im.emit(OpType::ewadd, {y, im.weight(Constant::real({}, {beta}), n.output(0) + "_beta")});
  OpParams p;
  p.lo = 0;
  p.hi = 1;
  im.set_output(n, 0, im.emit(OpType::clip, {y}, p, n.output(0)));
}

void map_hardswish(Importer& im, const NodeProto& n) {
  im.set_output(n, 0, im.emit(OpType::hardswish, {im.tensor_input(n, 0)}, {}, n.output(0)));
}

// ONNX's Expand broadcasts both ways: the result has the broadcast of the two shapes.
void map_expand(Importer& im, const NodeProto& n) {
  const Constant* shape = im.constant_input(n, 1);
  if (!shape) throw Error("the target shape must be known at import");
  const std::vector<int64_t> in = im.input_dims(n, 0);
  const std::vector<int64_t> out = broadcast_dims(in, as_ints(*shape, "shape"));
  TensorRef x = im.tensor_input(n, 0);
  if (out == in) return im.set_output(n, 0, x);
  OpParams p;
  p.shape = shape_of(out);
  im.set_output(n, 0, im.emit(OpType::expand, {x}, p, n.output(0)));
}

// The output dims from `sizes` (input 3) or `scales` (input 2), as ONNX gives them.
std::vector<int64_t> resize_dims(const Importer& im, const NodeProto& n, const std::vector<int64_t>& in) {
  std::vector<int64_t> out;
  if (im.has_input(n, 3)) {
    const Constant* sizes = im.constant_input(n, 3);
    if (!sizes) throw Error("sizes must be known at import");
    out = as_ints(*sizes, "sizes");
  } else {
    const Constant* scales = im.has_input(n, 2) ? im.constant_input(n, 2) : nullptr;
    if (!scales) throw Error("scales or sizes must be known at import");
    if (scales->size() != static_cast<int64_t>(in.size()))
      throw Error("scales do not match the input's rank");
    for (size_t k = 0; k < in.size(); ++k)
      out.push_back(static_cast<int64_t>(std::floor(double(in[k]) * float(scales->at(int64_t(k))))));
  }
  if (out.size() != in.size()) throw Error("sizes do not match the input's rank");
  return out;
}

// Bilinear with half-pixel centres: PyTorch's align_corners=False. ONNX's
// pytorch_half_pixel differs from half_pixel only for an output of size 1,
// where it reads position 0 and PyTorch the centre: refused.
void map_resize(Importer& im, const NodeProto& n) {
  if (attr_string(n, "mode", "nearest") != "linear") throw Error("only mode 'linear' is supported");
  const std::string ct = attr_string(n, "coordinate_transformation_mode", "half_pixel");
  if (ct != "half_pixel" && ct != "pytorch_half_pixel")
    throw Error("coordinate_transformation_mode '" + ct + "' is not supported (half_pixel is)");
  if (attr_int(n, "antialias", 0)) throw Error("antialias is not supported");
  if (has_attr(n, "axes")) throw Error("the axes attribute is not supported");
  const std::vector<int64_t> in = im.input_dims(n, 0);
  const std::vector<int64_t> out = resize_dims(im, n, in);
  for (size_t k = 0; k + 2 < in.size(); ++k)
    if (out[k] != in[k]) throw Error("only the last two dimensions may be resized");
  if (in.size() < 3) throw Error("the input must have rank 3 or more");
  if (ct == "pytorch_half_pixel" && (out.end()[-1] == 1 || out.end()[-2] == 1))
    throw Error("pytorch_half_pixel to an output of size 1 is not supported");
  TensorRef x = im.tensor_input(n, 0);
  if (out == in) return im.set_output(n, 0, x);
  OpParams p;
  p.shape = shape_of(out);
  im.set_output(n, 0, im.emit(OpType::resize, {x}, p, n.output(0)));
}

// Gather with known indices from a computed tensor (ViT's class token, x[:, 0]):
// slices along the axis, concatenated where the indices are not one run; a
// scalar index drops the axis.
void map_gather(Importer& im, const NodeProto& n) {
  const Constant* indices = im.constant_input(n, 1);
  if (!indices) throw Error("indices computed at run time are not supported");
  std::vector<int64_t> in = im.input_dims(n, 0);
  const int rank = static_cast<int>(in.size());
  const int axis = normalize_axis(attr_int(n, "axis", 0), rank);
  std::vector<int64_t> idx = as_ints(*indices, "indices");
  if (indices->dims.size() > 1 || idx.empty()) throw Error("only a scalar or a list of indices is supported");
  for (int64_t& i : idx) {
    if (i < -in[axis] || i >= in[axis]) throw Error("index " + std::to_string(i) + " out of range");
    if (i < 0) i += in[axis];
  }
  TensorRef x = im.tensor_input(n, 0);
  std::vector<TensorRef> parts;
  for (size_t k = 0; k < idx.size();) {
    size_t end = k + 1;
    while (end < idx.size() && idx[end] == idx[end - 1] + 1) ++end;
    OpParams p;
    p.axis = axis;
    p.begin = static_cast<int32_t>(idx[k]);
    p.end = static_cast<int32_t>(idx[end - 1] + 1);
    parts.push_back(p.begin == 0 && p.end == in[axis] ? x : im.emit(OpType::slice, {x}, p));
    k = end;
  }
  OpParams cat;
  cat.axis = axis;
  TensorRef y = parts.size() == 1 ? parts[0] : im.emit(OpType::concat, parts, cat);
  if (indices->dims.empty()) {
    in.erase(in.begin() + axis);
    OpParams r;
    r.shape = shape_of(in);
    y = im.emit(OpType::reshape, {y}, r, n.output(0));
  }
  im.set_output(n, 0, y);
}

// ReduceL2 (Swin V2's F.normalize): sqrt(mean(x * x) * count) over the axes.
void map_reduce_l2(Importer& im, const NodeProto& n) {
  std::vector<int64_t> in = im.input_dims(n, 0);
  const int rank = static_cast<int>(in.size());
  std::vector<int64_t> axes = ints_from(im, n, 1, "axes").value_or(std::vector<int64_t>{});
  if (axes.empty())
    for (int k = 0; k < rank; ++k) axes.push_back(k);
  OpParams p;
  int64_t count = 1;
  for (int64_t a : axes) {
    const int k = normalize_axis(a, rank);
    if (!(p.axes & (1u << k))) count *= in[size_t(k)];
    p.axes |= static_cast<uint8_t>(1u << k);
  }
  const bool keep = attr_int(n, "keepdims", 1) != 0;
  TensorRef x = im.tensor_input(n, 0);
  TensorRef mean = im.emit(OpType::reduce_mean, {im.emit(OpType::ewmul, {x, x})}, p);
  TensorRef sum =
      im.emit(OpType::ewmul, {mean, im.weight(Constant::real({}, {float(count)}), n.output(0) + "_count")});
  TensorRef y = im.emit(OpType::sqrt, {sum}, {}, keep ? n.output(0) : "");
  if (!keep) {
    std::vector<int64_t> dims;
    for (int k = 0; k < rank; ++k)
      if (!(p.axes & (1u << k))) dims.push_back(in[size_t(k)]);
    OpParams r;
    r.shape = shape_of(dims);
    y = im.emit(OpType::reshape, {y}, r, n.output(0));
  }
  im.set_output(n, 0, y);
}

}  // namespace

void add_zoo_mappers(MapperTable& t) {
  t["ReduceL2"] = map_reduce_l2;
  t["Gather"] = map_gather;
  t["LayerNormalization"] = map_layer_norm;
  t["HardSigmoid"] = map_hardsigmoid;
  t["HardSwish"] = map_hardswish;
  t["Expand"] = map_expand;
  t["Resize"] = map_resize;
}

}  // namespace superopt::onnx_import
