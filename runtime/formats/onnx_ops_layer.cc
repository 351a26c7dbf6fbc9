// ONNX layers mapped onto ours: Conv (with its bias; dilated with a constant
// kernel as the kernel with zeros between its taps), MaxPool, AveragePool (with
// count_include_pad and ceil_mode), global pools, BatchNormalization, Gemm and
// MatMul. ONNX's explicit padding becomes our SAME or VALID where that is the
// same window, and otherwise an explicit pad operator before a VALID one.
#include <algorithm>
#include <cmath>

#include "runtime/core/error.h"
#include "runtime/formats/onnx_importer.h"

namespace superopt::onnx_import {
namespace {

using onnx::NodeProto;

// The most values a dilated kernel with zeros between its taps may have (as
// many as any constant: onnx_constant.cc), so that its size cannot overflow.
constexpr int64_t kMaxDilatedValues = int64_t{1} << 40;

// One spatial dimension of a convolution or pooling window, as ONNX states it.
struct Axis {
  int64_t in = 0, kernel = 1, stride = 1, pad_begin = 0, pad_end = 0, out = 0;
  bool operator==(const Axis&) const = default;
};

// Reads kernel, strides, pads, auto_pad, dilations and ceil_mode for both
// spatial dimensions of an NCHW input, and the output size ONNX gives.
std::array<Axis, 2> read_window(const NodeProto& n, const std::vector<int64_t>& x,
                                std::array<int64_t, 2> kernel, bool ceil_mode, bool dilated_kernel = false) {
  if (x.size() != 4) throw Error("only 2-D (NCHW) inputs are supported");
  // Each checked against the int32 fields it goes into (2^32 + 1 was read as 1).
  const std::vector<int64_t> strides =
      checked_int32(attr_ints(n, "strides").value_or(std::vector<int64_t>{1, 1}), "attribute 'strides'");
  const std::vector<int64_t> pads =
      checked_int32(attr_ints(n, "pads").value_or(std::vector<int64_t>{0, 0, 0, 0}), "attribute 'pads'");
  const std::vector<int64_t> dilations =
      checked_int32(attr_ints(n, "dilations").value_or(std::vector<int64_t>{1, 1}), "attribute 'dilations'");
  if (strides.size() != 2 || pads.size() != 4 || dilations.size() != 2)
    throw Error("strides, pads or dilations do not match 2 spatial dimensions");
  if (!dilated_kernel && (dilations[0] != 1 || dilations[1] != 1))
    throw Error("dilations other than 1 are not supported");
  const std::string auto_pad = attr_string(n, "auto_pad", "NOTSET");
  std::array<Axis, 2> axes;
  for (int k = 0; k < 2; ++k) {
    Axis& a = axes[k];
    a.in = x[2 + k];
    a.kernel = kernel[k];
    a.stride = strides[k];
    if (a.stride <= 0 || a.kernel <= 0) throw Error("kernel and strides must be positive");
    a.pad_begin = pads[k];
    a.pad_end = pads[k + 2];
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t out = (a.in + a.stride - 1) / a.stride;
      const int64_t total = std::max<int64_t>((out - 1) * a.stride + a.kernel - a.in, 0);
      a.pad_begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      a.pad_end = total - a.pad_begin;
    } else if (auto_pad == "VALID") {
      a.pad_begin = a.pad_end = 0;
    } else if (auto_pad != "NOTSET") {
      throw Error("auto_pad '" + auto_pad + "' is not supported");
    }
    if (a.pad_begin < 0 || a.pad_end < 0) throw Error("negative pads are not supported");
    const int64_t span = a.in + a.pad_begin + a.pad_end - a.kernel;
    if (span < 0) throw Error("the window is larger than the padded input");
    a.out = (ceil_mode ? (span + a.stride - 1) / a.stride : span / a.stride) + 1;
    // As PyTorch: the last window must start inside the input or its leading padding.
    if (ceil_mode && (a.out - 1) * a.stride >= a.in + a.pad_begin) --a.out;
  }
  return axes;
}

// A dilated kernel is the plain kernel with zeros between its taps: the same
// convolution, which our conv2d (no dilation parameter) can run. Of that
// kernel only the rows and columns some window puts on the input, and that are
// not zero in every plane (leading ones only as far as the leading padding
// goes: windows never start inside), are kept, and the leading padding moves
// with them: the same outputs from a smaller kernel. A large dilation on a
// small feature map (DeepLab's rates 12-36 on 8x8) leaves little more than the
// centre tap. The kernel with zeros is never built whole: at rate 36, 3x3 taps
// and 2048x256 planes it would be 2.8e9 values (11 GB, 90 s of a zoo import).
Constant trimmed_dilated_kernel(const Constant& c, int64_t dh, int64_t dw, std::array<Axis, 2>& axes) {
  const int64_t planes = c.dims[0] * c.dims[1], kh = c.dims[2], kw = c.dims[3];
  const std::array<int64_t, 2> dilation{dh, dw};
  // Line `at` of the dilated kernel along `axis` (0: a row, 1: a column).
  auto zero_line = [&](int axis, int64_t at) {
    if (at % dilation[axis] != 0) return true;  // between taps
    const int64_t tap = at / dilation[axis];
    for (int64_t pl = 0; pl < planes; ++pl)
      for (int64_t t = 0; t < (axis == 0 ? kw : kh); ++t) {
        const int64_t r = axis == 0 ? tap : t, q = axis == 0 ? t : tap;
        if (c.reals[size_t((pl * kh + r) * kw + q)] != 0.0f) return false;
      }
    return true;
  };
  std::array<int64_t, 2> first{}, last{};
  for (int k = 0; k < 2; ++k) {
    const Axis& a = axes[k];
    first[k] = std::max<int64_t>(0, a.pad_begin - (a.out - 1) * a.stride);
    last[k] = std::min<int64_t>(a.kernel - 1, a.in - 1 + a.pad_begin);
    while (first[k] < last[k] && first[k] < a.pad_begin && zero_line(k, first[k])) ++first[k];
    while (last[k] > first[k] && zero_line(k, last[k])) --last[k];
  }
  const int64_t th = last[0] - first[0] + 1, tw = last[1] - first[1] + 1;
  std::vector<float> v(size_t(planes * th * tw), 0.0f);
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t r = first[0]; r <= last[0]; ++r)
      for (int64_t q = first[1]; q <= last[1]; ++q)
        if (r % dh == 0 && q % dw == 0)
          v[size_t((pl * th + r - first[0]) * tw + q - first[1])] =
              c.reals[size_t((pl * kh + r / dh) * kw + q / dw)];
  for (int k = 0; k < 2; ++k) {
    Axis& a = axes[k];
    a.pad_begin -= first[k];
    a.kernel = k == 0 ? th : tw;
    a.pad_end = std::max<int64_t>(0, (a.out - 1) * a.stride + a.kernel - a.in - a.pad_begin);
  }
  return Constant::real({c.dims[0], c.dims[1], th, tw}, std::move(v));
}

// Rows of padding after the input that the windows actually read.
int64_t needed_end(const Axis& a) {
  return std::max<int64_t>(0, (a.out - 1) * a.stride + a.kernel - a.in - a.pad_begin);
}

// Our padding mode for these windows, or nullopt when only an explicit pad gives them.
std::optional<Padding> our_padding(const std::array<Axis, 2>& axes) {
  bool valid = true, same = true;
  for (const Axis& a : axes) {
    valid = valid && a.pad_begin == 0 && needed_end(a) == 0;
    const Window w = window(a.in, a.kernel, a.stride, Padding::same);
    same = same && w.out == a.out && w.pad_before == a.pad_begin;
  }
  if (valid) return Padding::valid;
  if (same) return Padding::same;
  return std::nullopt;
}

// x padded with `value` as the windows need, so that VALID windows over it are ONNX's.
TensorRef pad_for(Importer& im, TensorRef x, const std::array<Axis, 2>& axes, float value) {
  OpParams p;
  p.pads = {static_cast<int32_t>(axes[0].pad_begin), static_cast<int32_t>(needed_end(axes[0])),
            static_cast<int32_t>(axes[1].pad_begin), static_cast<int32_t>(needed_end(axes[1]))};
  p.value = value;
  return im.emit(OpType::pad, {x}, p);
}

void set_window(OpParams& p, const std::array<Axis, 2>& axes) {
  p.kernel_h = static_cast<int32_t>(axes[0].kernel);
  p.kernel_w = static_cast<int32_t>(axes[1].kernel);
  p.stride_h = static_cast<int32_t>(axes[0].stride);
  p.stride_w = static_cast<int32_t>(axes[1].stride);
}

void map_conv(Importer& im, const NodeProto& n) {
  std::vector<int64_t> x = im.input_dims(n, 0), w = im.input_dims(n, 1);
  if (w.size() != 4) throw Error("only 2-D convolutions are supported");
  const int64_t group = attr_int(n, "group", 1);
  if (group < 1 || x[1] != w[1] * group)
    throw Error("group " + std::to_string(group) + " does not match input channels " + std::to_string(x[1]) +
                " and kernel " + std::to_string(w[1]) + " per group");
  if (auto k = attr_ints(n, "kernel_shape");
      k && checked_int32(*k, "attribute 'kernel_shape'") != std::vector<int64_t>(w.begin() + 2, w.end()))
    throw Error("kernel_shape does not match the kernel's " + shape_of(w).str());
  const std::vector<int64_t> dilations =
      checked_int32(attr_ints(n, "dilations").value_or(std::vector<int64_t>{1, 1}), "attribute 'dilations'");
  const bool dilated = dilations.size() == 2 && (dilations[0] != 1 || dilations[1] != 1);
  const Constant* c = nullptr;
  if (dilated) {
    c = im.constant_input(n, 1);
    if (!c || !c->is_real) throw Error("dilations other than 1 need a constant kernel");
    if (dilations[0] < 1 || dilations[1] < 1) throw Error("dilations must be positive");
    // The kernel with zeros between its taps: its size must not overflow.
    const int64_t planes = w[0] * w[1], h = dilations[0] * (w[2] - 1) + 1, wd = dilations[1] * (w[3] - 1) + 1;
    if (wd > kMaxDilatedValues || h > kMaxDilatedValues / wd || planes > kMaxDilatedValues / (h * wd))
      throw Error("dilations " + std::to_string(dilations[0]) + "x" + std::to_string(dilations[1]) +
                  " make a kernel of " + std::to_string(h) + "x" + std::to_string(wd) + " taps, too large");
    w[2] = h;
    w[3] = wd;
  }
  std::array<Axis, 2> axes = read_window(n, x, {w[2], w[3]}, false, dilated);
  std::optional<Constant> trimmed;
  if (dilated) {
    trimmed = trimmed_dilated_kernel(*c, dilations[0], dilations[1], axes);
    w = trimmed->dims;
  }
  TensorRef input = im.tensor_input(n, 0);
  TensorRef kernel =
      trimmed ? im.weight(std::move(*trimmed), n.input(1) + "_dilated") : im.tensor_input(n, 1);
  OpParams p;
  std::optional<Padding> padding = our_padding(axes);
  if (!padding) input = pad_for(im, input, axes, 0.0f);
  p.padding = padding.value_or(Padding::valid);
  p.stride_h = static_cast<int32_t>(axes[0].stride);
  p.stride_w = static_cast<int32_t>(axes[1].stride);
  // ONNX's B [O] is conv2d's own third input.
  std::vector<TensorRef> inputs{input, kernel};
  if (im.has_input(n, 2)) {
    const Value& b = im.input(n, 2);
    inputs.push_back(b.constant ? im.weight(b.constant, n.input(2), Shape{w[0]}) : *b.tensor);
  }
  im.set_output(n, 0, im.emit(OpType::conv2d, inputs, p, n.output(0)));
}

std::array<int64_t, 2> kernel_attr(const NodeProto& n) {
  const std::vector<int64_t> k = checked_int32(attr_ints(n, "kernel_shape").value_or(std::vector<int64_t>{}),
                                               "attribute 'kernel_shape'");
  if (k.size() != 2) throw Error("kernel_shape must give 2 spatial sizes");
  return {k[0], k[1]};
}

void map_max_pool(Importer& im, const NodeProto& n) {
  if (n.output_size() > 1 && !n.output(1).empty()) throw Error("the indices output is not supported");
  if (attr_int(n, "storage_order", 0)) throw Error("storage_order 1 is not supported");
  std::array<Axis, 2> axes = read_window(n, im.input_dims(n, 0), kernel_attr(n), attr_int(n, "ceil_mode", 0));
  TensorRef x = im.tensor_input(n, 0);
  OpParams p;
  set_window(p, axes);
  std::optional<Padding> padding = our_padding(axes);
  if (!padding) x = pad_for(im, x, axes, -INFINITY);  // ours ignores padding: so does -inf
  p.padding = padding.value_or(Padding::valid);
  im.set_output(n, 0, im.emit(OpType::pool_max, {x}, p, n.output(0)));
}

// Window size over the number of input positions it covers, per output
// position: turns an average over the whole window into one over the input.
Constant coverage_factors(const std::array<Axis, 2>& axes) {
  std::vector<float> f;
  auto covered = [](const Axis& a, int64_t o) {
    const int64_t first = o * a.stride - a.pad_begin;
    return std::min(first + a.kernel, a.in) - std::max<int64_t>(first, 0);
  };
  for (int64_t oh = 0; oh < axes[0].out; ++oh)
    for (int64_t ow = 0; ow < axes[1].out; ++ow)
      f.push_back(static_cast<float>(double(axes[0].kernel * axes[1].kernel) /
                                     double(covered(axes[0], oh) * covered(axes[1], ow))));
  return Constant::real({1, 1, axes[0].out, axes[1].out}, std::move(f));
}

void map_average_pool(Importer& im, const NodeProto& n) {
  const std::vector<int64_t> in = im.input_dims(n, 0);
  const bool ceil_mode = attr_int(n, "ceil_mode", 0) != 0;
  std::array<Axis, 2> axes = read_window(n, in, kernel_attr(n), ceil_mode);
  if (ceil_mode && axes != read_window(n, in, kernel_attr(n), false))
    throw Error("ceil_mode that adds windows is not supported for average pooling");
  TensorRef x = im.tensor_input(n, 0);
  OpParams p;
  set_window(p, axes);
  std::optional<Padding> padding = our_padding(axes);
  const bool padded = padding != Padding::valid;
  if (!padding) x = pad_for(im, x, axes, 0.0f);
  p.padding = padding.value_or(Padding::valid);
  const bool count_pad = attr_int(n, "count_include_pad", 0) != 0;
  if (count_pad || !padded) return im.set_output(n, 0, im.emit(OpType::pool_avg, {x}, p, n.output(0)));
  // Ours divides by the whole window; ONNX's default divides by the input positions covered.
  TensorRef sum = im.emit(OpType::pool_avg, {x}, p);
  TensorRef factors = im.weight(coverage_factors(axes), n.output(0) + "_coverage");
  im.set_output(n, 0, im.emit(OpType::ewmul, {sum, factors}, {}, n.output(0)));
}

Mapper global_pool(OpType op) {
  return [op](Importer& im, const NodeProto& n) {
    std::vector<int64_t> x = im.input_dims(n, 0);
    if (x.size() != 4) throw Error("only 2-D (NCHW) inputs are supported");
    OpParams p;
    p.kernel_h = static_cast<int32_t>(x[2]);
    p.kernel_w = static_cast<int32_t>(x[3]);
    p.padding = Padding::valid;
    im.set_output(n, 0, im.emit(op, {im.tensor_input(n, 0)}, p, n.output(0)));
  };
}

void map_batchnorm(Importer& im, const NodeProto& n) {
  if (attr_int(n, "training_mode", 0)) throw Error("training mode is not supported (inference only)");
  // Running-statistics outputs (training) stay unbound: reading one fails as unproduced.
  std::vector<TensorRef> in;
  for (int i = 0; i < 5; ++i) in.push_back(im.tensor_input(n, i));
  OpParams p;
  p.epsilon = attr_float(n, "epsilon", 1e-5f);
  im.set_output(n, 0, im.emit(OpType::batchnorm, in, p, n.output(0)));
}

TensorRef transposed(Importer& im, const NodeProto& n, int i) {
  const Value& v = im.input(n, i);
  if (v.constant && v.constant->dims.size() == 2) {  // a weight: transpose its data now
    const Constant& c = *v.constant;
    const int64_t rows = c.dims[0], cols = c.dims[1];
    if (static_cast<int64_t>(c.reals.size()) != rows * cols) throw Error("B holds integers");
    std::vector<float> t(static_cast<size_t>(rows * cols));
    constexpr int64_t kTile = 64;  // tiles, so that a 100M-element matrix takes a second, not ten
    for (int64_t r0 = 0; r0 < rows; r0 += kTile)
      for (int64_t k0 = 0; k0 < cols; k0 += kTile)
        for (int64_t r = r0; r < std::min(rows, r0 + kTile); ++r)
          for (int64_t k = k0; k < std::min(cols, k0 + kTile); ++k) t[k * rows + r] = c.reals[r * cols + k];
    return im.weight(Constant::real({cols, rows}, std::move(t)), n.input(i));
  }
  return im.emit(OpType::transpose, {im.tensor_input(n, i)});
}

TensorRef scaled(Importer& im, TensorRef x, float factor, const std::string& name) {
  if (factor == 1.0f) return x;
  return im.emit(OpType::ewmul, {x, im.weight(Constant::real({}, {factor}), name)});
}

void map_gemm(Importer& im, const NodeProto& n) {
  if (im.input_rank(n, 0) != 2 || im.input_rank(n, 1) != 2) throw Error("A and B must be matrices");
  TensorRef a = attr_int(n, "transA", 0) ? transposed(im, n, 0) : im.tensor_input(n, 0);
  TensorRef b = attr_int(n, "transB", 0) ? transposed(im, n, 1) : im.tensor_input(n, 1);
  const bool bias = im.has_input(n, 2);
  TensorRef y = im.emit(OpType::matmul, {a, b}, {}, bias ? "" : n.output(0));
  y = scaled(im, y, attr_float(n, "alpha", 1.0f), n.output(0) + "_alpha");
  if (bias) {
    TensorRef c = scaled(im, im.tensor_input(n, 2), attr_float(n, "beta", 1.0f), n.output(0) + "_beta");
    y = im.emit(OpType::ewadd, {y, c}, {}, n.output(0));
  }
  im.set_output(n, 0, y);
}

// A vector operand becomes a matrix and its dimension is dropped from the result, as NumPy's matmul.
void map_matmul(Importer& im, const NodeProto& n) {
  std::vector<int64_t> da = im.input_dims(n, 0), db = im.input_dims(n, 1);
  TensorRef a = im.tensor_input(n, 0), b = im.tensor_input(n, 1);
  auto reshape = [&](TensorRef t, std::vector<int64_t> dims, const std::string& name = {}) {
    OpParams p;
    p.shape = Constant::real(dims, {}).shape();
    return im.emit(OpType::reshape, {t}, p, name);
  };
  const bool a_vector = da.size() == 1, b_vector = db.size() == 1;
  if (a_vector) a = reshape(a, {1, da[0]});
  if (b_vector) b = reshape(b, {db[0], 1});
  const bool plain = !a_vector && !b_vector;
  TensorRef y = im.emit(OpType::matmul, {a, b}, {}, plain ? n.output(0) : "");
  if (!plain) {
    const Shape& s = im.graph().shape(y);
    std::vector<int64_t> dims;
    for (int k = 0; k < s.rank(); ++k)
      if (!((a_vector && k == s.rank() - 2) || (b_vector && k == s.rank() - 1))) dims.push_back(s[k]);
    y = reshape(y, dims, n.output(0));
  }
  im.set_output(n, 0, y);
}

}  // namespace

void add_layer_mappers(MapperTable& t) {
  t["Conv"] = map_conv;
  t["MaxPool"] = map_max_pool;
  t["AveragePool"] = map_average_pool;
  t["GlobalAveragePool"] = global_pool(OpType::pool_avg);
  t["GlobalMaxPool"] = global_pool(OpType::pool_max);
  t["BatchNormalization"] = map_batchnorm;
  t["Gemm"] = map_gemm;
  t["MatMul"] = map_matmul;
}

}  // namespace superopt::onnx_import
