// Values known while importing an ONNX model: initializers, Constant nodes and
// the shape computations folded from them, with ONNX's broadcasting and the
// reading of TensorProto data (raw, typed fields or an external file).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/shape.h"

namespace superopt::onnx_import {

// A tensor whose values are known at import: float32 data as floats (exactly
// what the file holds), integers and booleans as int64.
struct Constant {
  std::string name;  // the initializer's or Constant node's output, for the weight made of it
  std::vector<int64_t> dims;
  bool is_real = true;
  std::vector<float> reals;
  std::vector<int64_t> ints;

  int64_t size() const;
  double at(int64_t i) const { return is_real ? reals[i] : static_cast<double>(ints[i]); }
  // Our shape of it; throws Error beyond rank 6 or 2^31 per dimension.
  Shape shape() const;
  static Constant integers(std::vector<int64_t> dims, std::vector<int64_t> values);
  static Constant real(std::vector<int64_t> dims, std::vector<float> values);
};

// Our shape of ONNX dimensions; throws Error beyond rank 6 or 2^31 per dimension.
Shape shape_of(const std::vector<int64_t>& dims);

// Reads a TensorProto, taking its data from `raw_data`, the typed fields or the
// external file named relative to `model_dir`; releases what it read from the
// proto so that large models are not held twice. Throws Error naming the tensor
// when the data size does not match the shape, the file is missing or short, or
// the type is not float, double or an integer type.
Constant read_tensor(onnx::TensorProto& t, const std::string& model_dir);

// Where `t` keeps its data in an external file, reads it into `raw_data`
// (as onnx.load does) so that the checker and shape inference see every value;
// refuses a location outside `model_dir` (links resolved), one that is not a
// regular file or one shorter than the tensor, naming the tensor.
void load_external_data(onnx::TensorProto& t, const std::string& model_dir);

// The integers of a constant (shapes, axes, indices); throws Error when it is real.
std::vector<int64_t> as_ints(const Constant& c, const std::string& what);

// NumPy broadcasting of two constants' dims; throws Error when they do not broadcast.
std::vector<int64_t> broadcast_dims(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
// f(a[i], b[j]) over the broadcast result, in double; the result is integer when both are.
Constant broadcast_apply(const Constant& a, const Constant& b, double (*f)(double, double));

}  // namespace superopt::onnx_import
