// The model builders' helper: operators with their weights, named after the layer.
#include "runtime/models/model_builder.h"

#include <cassert>

namespace superopt::models {

TensorRef ModelBuilder::conv(const std::string& name, TensorRef x, int64_t out_channels, int kh, int kw,
                             int stride, Padding padding, Activation activation, int64_t groups) {
  TensorRef w = weight(name + ".weight", {out_channels, channels(x) / groups, kh, kw});
  OpParams p;
  p.stride_h = p.stride_w = stride;
  p.padding = padding;
  p.activation = activation;
  return op(OpType::conv2d, name, {x, w}, p);
}

TensorRef ModelBuilder::pool(OpType pool_op, const std::string& name, TensorRef x, int k, int stride,
                             Padding padding) {
  assert(pool_op == OpType::pool_avg || pool_op == OpType::pool_max);
  OpParams p;
  p.kernel_h = p.kernel_w = k;
  p.stride_h = p.stride_w = stride;
  p.padding = padding;
  return op(pool_op, name, {x}, p);
}

TensorRef ModelBuilder::linear(const std::string& name, TensorRef x, int64_t out_features) {
  TensorRef w = weight(name + ".weight", {shape(x).back(0), out_features});
  return op(OpType::matmul, name, {x, w});
}

TensorRef ModelBuilder::op(OpType type, const std::string& name, std::initializer_list<TensorRef> inputs,
                           const OpParams& params) {
  return {graph.add(type, inputs, params, name), 0};
}

TensorRef ModelBuilder::concat(const std::string& name, const std::vector<TensorRef>& inputs, int axis) {
  OpParams p;
  p.axis = axis;
  return {graph.add(OpType::concat, std::span<const TensorRef>(inputs), p, name), 0};
}

TensorRef ModelBuilder::reshape(const std::string& name, TensorRef x, const Shape& shape) {
  OpParams p;
  p.shape = shape;
  return op(OpType::reshape, name, {x}, p);
}

TensorRef ModelBuilder::transpose(const std::string& name, TensorRef x, std::initializer_list<int> perm) {
  OpParams p;
  int i = 0;
  for (int d : perm) p.perm[i++] = static_cast<int8_t>(d);
  return op(OpType::transpose, name, {x}, p);
}

}  // namespace superopt::models
