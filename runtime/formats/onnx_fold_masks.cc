// Folding at import, continued: the operators Swin's attention masks and
// position biases are built from when every input is known (Mod, Not,
// ScatterND, Transpose, Clip, Expand, Pow, and Where with broadcasting, as
// masked_fill exports it). Like onnx_fold.cc, they
// produce constants and never reach the graph. Not Exp: Swin V2's logit scale
// exp(clamp(p)) is an `exp` node on a weight, folded in double at load (a float
// constant here put 3e-8 of relative error into the float64 comparison).
#include <algorithm>
#include <cmath>

#include "runtime/core/error.h"
#include "runtime/formats/onnx_importer.h"

namespace superopt::onnx_import {
namespace {

using onnx::NodeProto;

const Constant& need(const Importer& im, const NodeProto& n, int i) {
  return *im.constant_input(n, i);
}

// c repeated to dims (NumPy broadcasting), keeping its kind.
Constant broadcast_to(const Constant& c, const std::vector<int64_t>& dims) {
  Constant zeros = Constant::integers(dims, {});
  zeros.ints.assign(size_t(zeros.size()), 0);
  Constant out = broadcast_apply(zeros, c, [](double, double b) { return b; });
  if (c.is_real && !out.is_real) {  // the result is integer only when both are
    for (int64_t v : out.ints) out.reals.push_back(static_cast<float>(v));
    out.ints.clear();
    out.is_real = true;
  }
  return out;
}

// fmod = 1 follows C's fmod; 0 takes the divisor's sign, as Python's %.
void fold_mod(Importer& im, const NodeProto& n) {
  const bool c_style = attr_int(n, "fmod", 0) != 0;
  const Constant &a = need(im, n, 0), &b = need(im, n, 1);
  if (!b.is_real)
    for (int64_t v : b.ints)
      if (v == 0) throw Error("integer modulo by zero");
  im.set_output(
      n, 0,
      broadcast_apply(
          a, b, c_style ? +[](double x, double y) { return std::fmod(x, y); } : +[](double x, double y) {
            return x - y * std::floor(x / y);
          }));
}

void fold_not(Importer& im, const NodeProto& n) {
  Constant c = need(im, n, 0);
  if (c.is_real) throw Error("Not needs a boolean input");
  for (int64_t& v : c.ints) v = v == 0;
  im.set_output(n, 0, std::move(c));
}

void fold_where(Importer& im, const NodeProto& n) {
  const Constant &cond = need(im, n, 0), &x = need(im, n, 1), &y = need(im, n, 2);
  const std::vector<int64_t> dims = broadcast_dims(broadcast_dims(cond.dims, x.dims), y.dims);
  const Constant c = broadcast_to(cond, dims), a = broadcast_to(x, dims), b = broadcast_to(y, dims);
  Constant out = a;
  if (x.is_real != y.is_real) throw Error("X and Y have different types");
  for (int64_t k = 0; k < out.size(); ++k)
    if (!c.at(k)) {
      if (out.is_real)
        out.reals[size_t(k)] = b.reals[size_t(k)];
      else
        out.ints[size_t(k)] = b.ints[size_t(k)];
    }
  im.set_output(n, 0, std::move(out));
}

// data with the slices that indices name replaced by updates (reduction "none").
void fold_scatter_nd(Importer& im, const NodeProto& n) {
  if (attr_string(n, "reduction", "none") != "none") throw Error("only reduction 'none' is supported");
  Constant out = need(im, n, 0);
  const Constant &indices = need(im, n, 1), &updates = need(im, n, 2);
  if (out.is_real != updates.is_real) throw Error("data and updates have different types");
  const std::vector<int64_t> idx = as_ints(indices, "indices");
  if (indices.dims.empty()) throw Error("indices must have rank 1 or more");
  const size_t depth = size_t(indices.dims.back());
  if (depth == 0 || depth > out.dims.size()) throw Error("indices' last dimension does not fit the data");
  int64_t slice = 1;
  for (size_t k = depth; k < out.dims.size(); ++k) slice *= out.dims[k];
  const int64_t count = depth ? int64_t(idx.size() / depth) : 0;
  if (count * slice != updates.size()) throw Error("updates do not match the indices");
  for (int64_t u = 0; u < count; ++u) {
    int64_t offset = 0;
    for (size_t k = 0; k < depth; ++k) {
      int64_t i = idx[size_t(u) * depth + k];
      if (i < 0) i += out.dims[k];
      if (i < 0 || i >= out.dims[k]) throw Error("index out of range");
      offset = offset * out.dims[k] + i;
    }
    for (int64_t e = 0; e < slice; ++e) {
      if (out.is_real)
        out.reals[size_t(offset * slice + e)] = updates.reals[size_t(u * slice + e)];
      else
        out.ints[size_t(offset * slice + e)] = updates.ints[size_t(u * slice + e)];
    }
  }
  im.set_output(n, 0, std::move(out));
}

// Swin's relative position index, permuted before it is gathered from.
void fold_transpose(Importer& im, const NodeProto& n) {
  const Constant& c = need(im, n, 0);
  const int rank = static_cast<int>(c.dims.size());
  std::vector<int64_t> perm = attr_ints(n, "perm").value_or(std::vector<int64_t>{});
  if (perm.empty())
    for (int k = rank - 1; k >= 0; --k) perm.push_back(k);
  if (static_cast<int>(perm.size()) != rank) throw Error("perm does not match the input's rank");
  std::vector<int64_t> dims, in_strides(size_t(rank), 1), out_strides(size_t(rank), 1);
  for (int k = rank - 2; k >= 0; --k)
    in_strides[size_t(k)] = in_strides[size_t(k) + 1] * c.dims[size_t(k) + 1];
  for (int64_t& p : perm) p = normalize_axis(p, rank);
  for (int64_t p : perm) dims.push_back(c.dims[size_t(p)]);
  for (int k = rank - 2; k >= 0; --k)
    out_strides[size_t(k)] = out_strides[size_t(k) + 1] * dims[size_t(k) + 1];
  Constant out;
  out.dims = dims;
  out.is_real = c.is_real;
  for (int64_t o = 0; o < out.size(); ++o) {
    int64_t from = 0;
    for (int k = 0; k < rank; ++k)
      from += (o / out_strides[size_t(k)] % dims[size_t(k)]) * in_strides[size_t(perm[size_t(k)])];
    if (c.is_real)
      out.reals.push_back(c.reals[size_t(from)]);
    else
      out.ints.push_back(c.ints[size_t(from)]);
  }
  im.set_output(n, 0, std::move(out));
}

// x.new_zeros(shape) and friends: a constant broadcast to a shape (both ways, as Expand).
void fold_expand(Importer& im, const NodeProto& n) {
  const Constant& c = need(im, n, 0);
  im.set_output(n, 0, broadcast_to(c, broadcast_dims(c.dims, as_ints(need(im, n, 1), "shape"))));
}

// head_dim ** -0.5 and the like, in double, rounded to float.
void fold_pow(Importer& im, const NodeProto& n) {
  im.set_output(n, 0,
                broadcast_apply(
                    need(im, n, 0), need(im, n, 1), +[](double x, double y) { return std::pow(x, y); }));
}

// Swin V2's clamped logit scale; absent bounds do not clamp.
void fold_clip(Importer& im, const NodeProto& n) {
  Constant c = need(im, n, 0);
  if (!c.is_real) throw Error("Clip needs a real input");
  auto bound = [&](int i, const char* attr, double fallback) {
    if (im.has_input(n, i)) return need(im, n, i).at(0);
    return has_attr(n, attr) ? double(attr_float(n, attr, 0)) : fallback;
  };
  const double lo = bound(1, "min", -INFINITY), hi = bound(2, "max", INFINITY);
  for (float& v : c.reals) v = static_cast<float>(std::min(std::max(double(v), lo), hi));
  im.set_output(n, 0, std::move(c));
}

}  // namespace

void add_mask_folders(MapperTable& t) {
  t["Clip"] = fold_clip;
  t["Expand"] = fold_expand;
  t["Pow"] = fold_pow;
  t["Transpose"] = fold_transpose;
  t["Mod"] = fold_mod;
  t["Not"] = fold_not;
  t["Where"] = fold_where;
  t["ScatterND"] = fold_scatter_nd;
}

}  // namespace superopt::onnx_import
