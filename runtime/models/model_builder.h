// Shared by the model zoo's builders: a Graph wrapper that adds named weights
// with each operator, so that the builders read like the papers' model code.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "runtime/core/graph.h"

namespace superopt::models {

class ModelBuilder {
 public:
  Graph graph;

  TensorRef input(const std::string& name, const Shape& shape) { return {graph.add_input(name, shape), 0}; }
  TensorRef weight(const std::string& name, const Shape& shape) { return {graph.add_weight(name, shape), 0}; }

  // A convolution to out_channels with its weight "NAME.weight" [out, in/groups, kh, kw].
  TensorRef conv(const std::string& name, TensorRef x, int64_t out_channels, int kh, int kw, int stride,
                 Padding padding, Activation activation, int64_t groups = 1);
  // Same-padded, stride 1, square kernel: the common case.
  TensorRef conv(const std::string& name, TensorRef x, int64_t out_channels, int k, Activation activation) {
    return conv(name, x, out_channels, k, k, 1, Padding::same, activation);
  }
  TensorRef pool(OpType op, const std::string& name, TensorRef x, int k, int stride, Padding padding);
  // x · W with a weight "NAME.weight" [in, out].
  TensorRef linear(const std::string& name, TensorRef x, int64_t out_features);
  TensorRef op(OpType op, const std::string& name, std::initializer_list<TensorRef> inputs,
               const OpParams& params = {});
  TensorRef concat(const std::string& name, const std::vector<TensorRef>& inputs, int axis);
  TensorRef reshape(const std::string& name, TensorRef x, const Shape& shape);
  TensorRef transpose(const std::string& name, TensorRef x, std::initializer_list<int> perm);

  const Shape& shape(TensorRef t) const { return graph.shape(t); }
  int64_t channels(TensorRef t) const { return graph.shape(t)[1]; }
  void output(TensorRef t) { graph.add_output(t); }
};

}  // namespace superopt::models
