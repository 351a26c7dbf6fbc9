// Folding at import: ONNX operators whose inputs are all known (shape
// computations: Shape, Gather, Unsqueeze, Concat, Slice, Cast, ConstantOfShape,
// integer arithmetic...) are evaluated here and never reach the graph; Where,
// Mod, Not and ScatterND are in onnx_fold_masks.cc.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "runtime/core/error.h"
#include "runtime/formats/onnx_importer.h"

namespace superopt::onnx_import {
namespace {

using onnx::NodeProto;

const Constant& need(const Importer& im, const NodeProto& n, int i) {
  return *im.constant_input(n, i);
}

// Row-major strides of dims.
std::vector<int64_t> strides_of(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t k = dims.size(); k-- > 1;) s[k - 1] = s[k] * dims[k];
  return s;
}

// A constant with the same kind as `like`, the given dims, and element k taken from like[index(k)].
Constant gather_elements(const Constant& like, std::vector<int64_t> dims,
                         const std::function<int64_t(int64_t)>& index) {
  Constant out;
  out.dims = std::move(dims);
  out.is_real = like.is_real;
  const int64_t n = out.size();
  for (int64_t k = 0; k < n; ++k) {
    if (like.is_real)
      out.reals.push_back(like.reals[index(k)]);
    else
      out.ints.push_back(like.ints[index(k)]);
  }
  return out;
}

void fold_constant(Importer& im, const NodeProto& n) {
  const onnx::AttributeProto* a = n.attribute_size() == 1 ? &n.attribute(0) : nullptr;
  if (!a) throw Error("expected exactly one attribute");
  if (a->name() == "value") {
    onnx::TensorProto t = a->t();
    return im.set_output(n, 0, read_tensor(t, "."));
  }
  if (a->name() == "value_float") return im.set_output(n, 0, Constant::real({}, {a->f()}));
  if (a->name() == "value_floats")
    return im.set_output(n, 0, Constant::real({a->floats_size()}, {a->floats().begin(), a->floats().end()}));
  if (a->name() == "value_int") return im.set_output(n, 0, Constant::integers({}, {a->i()}));
  if (a->name() == "value_ints")
    return im.set_output(n, 0, Constant::integers({a->ints_size()}, {a->ints().begin(), a->ints().end()}));
  throw Error("attribute '" + a->name() + "' is not supported");
}

void fold_cast(Importer& im, const NodeProto& n) {
  Constant c = need(im, n, 0);
  const int64_t to = attr_int(n, "to", 0);  // compared whole: 2^32 + 1 is not FLOAT (1)
  const bool real = to == onnx::TensorProto::FLOAT || to == onnx::TensorProto::DOUBLE;
  if (real && !c.is_real) {
    for (int64_t v : c.ints) c.reals.push_back(static_cast<float>(v));
    c.ints.clear();
  } else if (!real && c.is_real) {
    for (float v : c.reals) c.ints.push_back(static_cast<int64_t>(v));  // truncation, as ONNX casts
    c.reals.clear();
  }
  c.is_real = real;
  im.set_output(n, 0, std::move(c));
}

void fold_gather(Importer& im, const NodeProto& n) {
  const Constant& data = need(im, n, 0);
  const Constant& indices = need(im, n, 1);
  const int rank = static_cast<int>(data.dims.size());
  const int axis = normalize_axis(attr_int(n, "axis", 0), rank);
  std::vector<int64_t> idx = as_ints(indices, "indices");
  for (int64_t& i : idx) {
    if (i < -data.dims[axis] || i >= data.dims[axis])
      throw Error("index " + std::to_string(i) + " out of range");
    if (i < 0) i += data.dims[axis];
  }
  std::vector<int64_t> dims(data.dims.begin(), data.dims.begin() + axis);
  dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
  dims.insert(dims.end(), data.dims.begin() + axis + 1, data.dims.end());
  int64_t inner = 1;
  for (int k = axis + 1; k < rank; ++k) inner *= data.dims[k];
  const int64_t count = static_cast<int64_t>(idx.size()), length = data.dims[axis];
  im.set_output(n, 0, gather_elements(data, dims, [&](int64_t k) {
                  const int64_t in = k % inner, j = (k / inner) % count, out = k / inner / count;
                  return (out * length + idx[j]) * inner + in;
                }));
}

// New dims for Unsqueeze (insert 1s at axes of the output) or Squeeze (drop axes).
void fold_unsqueeze(Importer& im, const NodeProto& n) {
  Constant c = need(im, n, 0);
  std::vector<int64_t> axes = ints_from(im, n, 1, "axes").value_or(std::vector<int64_t>{});
  const int rank = static_cast<int>(c.dims.size() + axes.size());
  for (int64_t& a : axes) a = normalize_axis(a, rank);
  std::sort(axes.begin(), axes.end());
  for (int64_t a : axes) c.dims.insert(c.dims.begin() + a, 1);
  im.set_output(n, 0, std::move(c));
}

void fold_squeeze(Importer& im, const NodeProto& n) {
  Constant c = need(im, n, 0);
  std::optional<std::vector<int64_t>> axes = ints_from(im, n, 1, "axes");
  const int rank = static_cast<int>(c.dims.size());
  std::vector<int64_t> dims;
  for (int k = 0; k < rank; ++k) {
    bool drop = !axes ? c.dims[k] == 1 : std::any_of(axes->begin(), axes->end(), [&](int64_t a) {
      return normalize_axis(a, rank) == k;
    });
    if (drop && c.dims[k] != 1)
      throw Error("cannot squeeze dimension " + std::to_string(k) + " of size " + std::to_string(c.dims[k]));
    if (!drop) dims.push_back(c.dims[k]);
  }
  c.dims = dims;
  im.set_output(n, 0, std::move(c));
}

void fold_concat(Importer& im, const NodeProto& n) {
  const Constant& first = need(im, n, 0);
  const int rank = static_cast<int>(first.dims.size());
  const int axis = normalize_axis(attr_int(n, "axis", 0), rank);
  Constant out;
  out.dims = first.dims;
  out.dims[axis] = 0;
  out.is_real = first.is_real;
  int64_t outer = 1;
  for (int k = 0; k < axis; ++k) outer *= first.dims[k];
  std::vector<const Constant*> parts;
  for (int i = 0; i < n.input_size(); ++i) {
    const Constant& c = need(im, n, i);
    if (c.dims.size() != first.dims.size() || c.is_real != first.is_real)
      throw Error("inputs differ in rank or type");
    out.dims[axis] += c.dims[axis];
    parts.push_back(&c);
  }
  for (int64_t o = 0; o < outer; ++o)
    for (const Constant* c : parts) {
      const int64_t block = c->size() / outer;
      if (c->is_real)
        out.reals.insert(out.reals.end(), c->reals.begin() + o * block, c->reals.begin() + (o + 1) * block);
      else
        out.ints.insert(out.ints.end(), c->ints.begin() + o * block, c->ints.begin() + (o + 1) * block);
    }
  im.set_output(n, 0, std::move(out));
}

void fold_reshape(Importer& im, const NodeProto& n) {
  Constant c = need(im, n, 0);
  std::vector<int64_t> dims = as_ints(need(im, n, 1), "shape");
  int64_t known = 1, infer = -1;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] == 0 && !attr_int(n, "allowzero", 0)) dims[k] = k < c.dims.size() ? c.dims[k] : 1;
    if (dims[k] == -1)
      infer = static_cast<int64_t>(k);
    else
      known *= dims[k];
  }
  if (infer >= 0 && known > 0) dims[infer] = c.size() / known;
  c.dims = dims;
  if (c.size() != static_cast<int64_t>(c.is_real ? c.reals.size() : c.ints.size()))
    throw Error("cannot reshape a constant to a different number of elements");
  im.set_output(n, 0, std::move(c));
}

void fold_constant_of_shape(Importer& im, const NodeProto& n) {
  std::vector<int64_t> dims = as_ints(need(im, n, 0), "shape");
  Constant fill = Constant::real({1}, {0.0f});
  if (const onnx::AttributeProto* a = find_attr(n, "value")) {
    onnx::TensorProto t = a->t();
    fill = read_tensor(t, ".");
  }
  Constant out;
  out.dims = dims;
  out.is_real = fill.is_real;
  const int64_t count = out.size();
  if (fill.size() != 1) throw Error("value must have one element");
  if (out.is_real)
    out.reals.assign(count, fill.reals[0]);
  else
    out.ints.assign(count, fill.ints[0]);
  im.set_output(n, 0, std::move(out));
}

// Integer division truncates as ONNX's does; real arithmetic is rounded to float.
template <double (*F)(double, double)>
Mapper binary() {
  return [](Importer& im, const NodeProto& n) {
    im.set_output(n, 0, broadcast_apply(need(im, n, 0), need(im, n, 1), F));
  };
}
double add(double a, double b) {
  return a + b;
}
double sub(double a, double b) {
  return a - b;
}
double mul(double a, double b) {
  return a * b;
}
double equal(double a, double b) {
  return a == b;
}

void fold_div(Importer& im, const NodeProto& n) {
  const Constant &a = need(im, n, 0), &b = need(im, n, 1);
  const bool integer = !a.is_real && !b.is_real;
  for (int64_t k = 0; integer && k < b.size(); ++k)
    if (b.ints[k] == 0) throw Error("integer division by zero");
  im.set_output(
      n, 0,
      broadcast_apply(
          a, b, integer ? +[](double x, double y) { return std::trunc(x / y); } : +[](double x, double y) {
            return x / y;
          }));
}

// The most values a Range folded at import may have.
constexpr int64_t kMaxRangeValues = int64_t{1} << 24;

// A double as its shortest exact text (1099511627776, 1e+300, nan).
std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

void fold_range(Importer& im, const NodeProto& n) {
  const Constant &start = need(im, n, 0), &limit = need(im, n, 1), &delta = need(im, n, 2);
  if (delta.at(0) == 0) throw Error("delta is zero");
  // In double first: a count beyond int64 (or NaN) would not convert. A range
  // is positions or indices: far fewer values than a tensor may hold, and each
  // is made here one by one.
  const double steps = std::ceil((limit.at(0) - start.at(0)) / delta.at(0));
  if (!(steps <= kMaxRangeValues))
    throw Error("a range of " + number_text(steps) + " values is over the " +
                std::to_string(kMaxRangeValues) + " folded at import");
  const int64_t count = std::max<int64_t>(0, static_cast<int64_t>(steps));
  Constant out;
  out.dims = {count};
  out.is_real = start.is_real;
  for (int64_t k = 0; k < count; ++k) {
    const double v = start.at(0) + k * delta.at(0);
    if (out.is_real)
      out.reals.push_back(static_cast<float>(v));
    else
      out.ints.push_back(static_cast<int64_t>(v));
  }
  im.set_output(n, 0, std::move(out));
}

}  // namespace

SliceArgs slice_args(const Importer& im, const NodeProto& n) {
  SliceArgs a;
  a.starts = ints_from(im, n, 1, "starts").value_or(std::vector<int64_t>{});
  a.ends = ints_from(im, n, 2, "ends").value_or(std::vector<int64_t>{});
  a.axes = ints_from(im, n, 3, "axes").value_or(std::vector<int64_t>{});
  a.steps = ints_from(im, n, 4, "steps").value_or(std::vector<int64_t>(a.starts.size(), 1));
  if (a.axes.empty())
    for (size_t k = 0; k < a.starts.size(); ++k) a.axes.push_back(static_cast<int64_t>(k));
  if (a.ends.size() != a.starts.size() || a.axes.size() != a.starts.size() ||
      a.steps.size() != a.starts.size())
    throw Error("starts, ends, axes and steps differ in length");
  return a;
}

// Clamped [start, end) with step for one axis of length dim, as ONNX's Slice.
void slice_bounds(int64_t dim, int64_t step, int64_t& start, int64_t& end) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
  }
}

namespace {

void fold_slice(Importer& im, const NodeProto& n) {
  const Constant& c = need(im, n, 0);
  const int rank = static_cast<int>(c.dims.size());
  const auto [starts, ends, axes, steps] = slice_args(im, n);
  std::vector<int64_t> first(rank, 0), step(rank, 1), dims = c.dims;
  for (size_t k = 0; k < starts.size(); ++k) {
    const int a = normalize_axis(axes[k], rank);
    if (steps[k] == 0) throw Error("step is zero");
    int64_t s = starts[k], e = ends[k];
    slice_bounds(c.dims[a], steps[k], s, e);
    first[a] = s;
    step[a] = steps[k];
    dims[a] = std::max<int64_t>(
        0, steps[k] > 0 ? (e - s + steps[k] - 1) / steps[k] : (s - e - steps[k] - 1) / -steps[k]);
  }
  const std::vector<int64_t> in_strides = strides_of(c.dims), out_strides = strides_of(dims);
  im.set_output(n, 0, gather_elements(c, dims, [&](int64_t k) {
                  int64_t idx = 0;
                  for (int d = 0; d < rank; ++d)
                    idx += (first[d] + (k / out_strides[d]) % dims[d] * step[d]) * in_strides[d];
                  return idx;
                }));
}

void fold_identity(Importer& im, const NodeProto& n) {
  im.bind(n.output(0), im.input(n, 0));
}

}  // namespace

void add_folders(MapperTable& t) {
  t["Constant"] = fold_constant;
  t["Identity"] = fold_identity;
  t["Cast"] = fold_cast;
  t["Gather"] = fold_gather;
  t["Unsqueeze"] = fold_unsqueeze;
  t["Squeeze"] = fold_squeeze;
  t["Concat"] = fold_concat;
  t["Reshape"] = fold_reshape;
  t["ConstantOfShape"] = fold_constant_of_shape;
  t["Add"] = binary<add>();
  t["Sub"] = binary<sub>();
  t["Mul"] = binary<mul>();
  t["Equal"] = [](Importer& im, const NodeProto& n) {
    Constant c = broadcast_apply(need(im, n, 0), need(im, n, 1), equal);
    if (c.is_real) c = Constant::integers(c.dims, std::vector<int64_t>(c.reals.begin(), c.reals.end()));
    im.set_output(n, 0, std::move(c));
  };
  t["Div"] = fold_div;
  t["Range"] = fold_range;
  t["Slice"] = fold_slice;
}

}  // namespace superopt::onnx_import
