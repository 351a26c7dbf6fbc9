// Canonicalization on import: a per-channel add after a convolution becomes the
// convolution's own bias (conv2d's third input, ONNX's Conv B), so that the rules
// over biased convolutions (data/opsets/conv-bias.json) meet imported models:
//   ewadd(conv2d(x, W), b)  ->  conv2d(x, W, reshape(b, [C]))
// where b is weight-only (a Conv's B, or the shift fold_batchnorms built) and
// [C,1,1], [1,C,1,1] or [C] for C output channels, and the convolution has no
// activation, no other reader and is not a graph output. Exact: the kernel adds
// the bias to each sum before any activation, as the add did after it. The
// rewrite itself (take_bias_adds) is shared with the linear layers' (onnx_linear.cc).
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/graph_analysis.h"
#include "runtime/formats/onnx_importer.h"

namespace superopt::onnx_import {
namespace {

bool per_channel(const Shape& s, int64_t channels) {
  return s == Shape{channels, 1, 1} || s == Shape{1, channels, 1, 1} || s == Shape{channels};
}

// The convolution and bias of an add that can become one biased convolution.
std::optional<BiasAdd> conv_add(const Graph& g, const Node& add, const std::vector<int>& readers,
                                const std::vector<bool>& weight_only) {
  if (add.op != OpType::ewadd) return std::nullopt;
  for (int k = 0; k < 2; ++k) {
    const TensorRef c = add.inputs()[k], b = add.inputs()[1 - k];
    const Node& conv = g.node(c.node);
    if (conv.op != OpType::conv2d || conv.num_inputs != 2 || conv.params.activation != Activation::none ||
        readers[size_t(c.node)] != 1 || weight_only[size_t(c.node)])
      continue;
    if (!weight_only[size_t(b.node)] || !per_channel(g.shape(b), g.shape(c)[1])) continue;
    if (add.output(0).shape != conv.output(0).shape) continue;  // the add must not broadcast the conv
    return BiasAdd{c.node, b, OpType::conv2d, conv.params};
  }
  return std::nullopt;
}

}  // namespace

void take_bias_adds(Graph& g, const BiasAddMatch& match) {
  const NodeId original = g.num_nodes();
  const std::vector<int> readers = reader_counts(g);
  const std::vector<bool> weight_only = weight_only_nodes(g);
  bool changed = false;
  for (NodeId id = 0; id < original; ++id) {
    const std::optional<BiasAdd> found = match(g, g.node(id), readers, weight_only);
    if (!found) continue;
    const Node producer = g.node(found->producer);
    TensorRef bias = found->bias;
    if (const Shape channels{g.shape(bias).num_elements()}; g.shape(bias) != channels) {
      OpParams r;
      r.shape = channels;
      bias = {g.add(OpType::reshape, {bias}, r), 0};
    }
    const TensorRef biased = {g.add(found->biased, {producer.inputs()[0], producer.inputs()[1], bias},
                                    found->params, g.node(id).name.str()),
                              0};
    g.replace_uses({id, 0}, biased);
    changed = true;
  }
  if (changed) g.remove_unused();
}

void take_conv_biases(Graph& g) {
  take_bias_adds(g, conv_add);
}

}  // namespace superopt::onnx_import
