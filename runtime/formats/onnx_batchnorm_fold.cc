// Canonicalization on import: an inference BatchNormalization after a
// convolution with a constant kernel is folded into the convolution, so that
// the rules meet a biased conv2d -> relu (data/opsets/conv-bias.json):
//   batchnorm(conv2d(x, W [, b0]) [+ b0], scale, beta, mean, var)
//     -> conv2d(x, W * f, (b0 - mean) * f + beta),  f = scale / sqrt(var + eps)
// (the shift the convolution's bias input [C], as ONNX's Conv B imports)
// W * f and the shift are built from the original weights with our operators
// (sqrt, ewadd, ewdiv, ewsub, ewmul, reshape), not stored as new float32
// constants: weight-only operators are folded once at load time in the
// evaluator's precision, so the float64 run stays equal to PyTorch's float64
// module within 1e-8 (a float32 pre-folded kernel would be ~1e-7 off).
// The same after a matrix product by a constant [K,C] matrix (BatchNorm1d
// after Linear): matmul(x, W * f[1,C]) + shift[C] (added: a matmul has no bias input).
// The convolution (and its bias add) must have the batchnorm as its only reader
// and not be a graph output; otherwise the batchnorm stays.
#include <optional>
#include <string>
#include <vector>

#include "runtime/formats/onnx_importer.h"

namespace superopt::onnx_import {
namespace {

bool is_weight(const Graph& g, TensorRef t) {
  return g.node(t.node).op == OpType::weight;
}

// The convolution (or matrix product) a batchnorm folds into, with its bias
// weight when it has one.
struct ConvBias {
  NodeId conv;
  std::optional<TensorRef> bias;
};

bool is_product(const Graph& g, TensorRef t) {
  const Node& n = g.node(t.node);
  if (n.op == OpType::conv2d) return is_weight(g, n.inputs()[1]);
  return n.op == OpType::matmul && g.shape(t).rank() == 2 && is_weight(g, n.inputs()[1]);
}

// The shapes a bias of the product may have: [C,1,1] after a conv, [C] or [1,C] after a matmul.
bool is_bias_shape(const Graph& g, TensorRef product, TensorRef bias) {
  const Shape& s = g.shape(bias);
  const int64_t channels = g.shape(product)[1];
  if (g.node(product.node).op == OpType::conv2d) return s == Shape{channels, 1, 1};
  return s == Shape{channels} || s == Shape{1, channels};
}

std::optional<ConvBias> folding_conv(const Graph& g, TensorRef x, const std::vector<int>& readers) {
  if (readers[static_cast<size_t>(x.node)] != 1) return std::nullopt;
  if (is_product(g, x)) {
    const Node& n = g.node(x.node);  // a conv2d's own bias (ONNX's Conv B) is its third input
    if (n.num_inputs == 3) return ConvBias{x.node, n.inputs()[2]};
    return ConvBias{x.node, std::nullopt};
  }
  const Node& n = g.node(x.node);
  if (n.op != OpType::ewadd) return std::nullopt;
  for (int k = 0; k < 2; ++k) {
    const TensorRef c = n.inputs()[k], b = n.inputs()[1 - k];
    if (!is_product(g, c) || g.node(c.node).num_inputs != 2 || readers[static_cast<size_t>(c.node)] != 1)
      continue;
    if (!is_weight(g, b) || !is_bias_shape(g, c, b)) continue;
    return ConvBias{c.node, b};
  }
  return std::nullopt;
}

TensorRef add(Graph& g, OpType op, std::initializer_list<TensorRef> in, const OpParams& p = {},
              std::string_view name = {}) {
  return {g.add(op, in, p, name), 0};
}

TensorRef reshaped(Graph& g, TensorRef t, Shape shape) {
  if (g.shape(t) == shape) return t;
  OpParams p;
  p.shape = std::move(shape);
  return add(g, OpType::reshape, {t}, p);
}

// Replaces batchnorm node `bn` by the folded convolution and bias add.
void fold(Graph& g, NodeId bn, const ConvBias& cb) {
  const Node b = g.node(bn);
  const Node conv = g.node(cb.conv);
  const TensorRef scale = b.inputs()[1], beta = b.inputs()[2], mean = b.inputs()[3], var = b.inputs()[4];
  const int64_t channels = g.shape(scale)[0];
  const std::string base = b.name.str().empty() ? "batchnorm" + std::to_string(bn) : b.name.str();
  const TensorRef eps = {g.add_weight(base + "_epsilon_folded", Shape{}, {b.params.epsilon}), 0};
  const TensorRef factor =
      add(g, OpType::ewdiv, {scale, add(g, OpType::sqrt, {add(g, OpType::ewadd, {var, eps})})});
  const bool is_conv = conv.op == OpType::conv2d;  // else a matmul by a [K,C] weight
  const Shape kernel_factor = is_conv ? Shape{channels, 1, 1, 1} : Shape{1, channels};
  const TensorRef kernel = add(g, OpType::ewmul, {conv.inputs()[1], reshaped(g, factor, kernel_factor)});
  // A convolution's shift is its bias input [C]; a matmul's is added, in the bias's shape.
  const Shape column = is_conv ? Shape{channels} : cb.bias ? g.shape(*cb.bias) : Shape{channels};
  const TensorRef factor_c = reshaped(g, factor, column), mean_c = reshaped(g, mean, column);
  const std::optional<TensorRef> b0 =
      cb.bias ? std::optional<TensorRef>(reshaped(g, *cb.bias, column)) : std::nullopt;
  const TensorRef centred =
      b0 ? add(g, OpType::ewmul, {add(g, OpType::ewsub, {*b0, mean_c}), factor_c})
         : add(g, OpType::ewsub, {reshaped(g, beta, column), add(g, OpType::ewmul, {mean_c, factor_c})});
  const TensorRef shift = b0 ? add(g, OpType::ewadd, {centred, reshaped(g, beta, column)}) : centred;
  const TensorRef folded =
      is_conv ? add(g, conv.op, {conv.inputs()[0], kernel, shift}, conv.params, b.name.str())
              : add(g, OpType::ewadd,
                    {add(g, conv.op, {conv.inputs()[0], kernel}, conv.params, conv.name.str()), shift}, {},
                    b.name.str());
  // Broadcasting would accept a misfit silently: the folded form must have the batchnorm's shape.
  if (g.shape(folded) == b.output(0).shape) g.replace_uses({bn, 0}, folded);
}

bool foldable_batchnorm(const Graph& g, const Node& n) {
  if (n.op != OpType::batchnorm) return false;
  const int rank = g.shape(n.inputs()[0]).rank();
  if (rank != 4 && rank != 2) return false;
  for (int i = 1; i < 5; ++i)
    if (!is_weight(g, n.inputs()[i]) || g.shape(n.inputs()[i]).rank() != 1) return false;
  return true;
}

}  // namespace

// How many inputs of nodes and graph outputs read each node.
std::vector<int> reader_counts(const Graph& g) {
  std::vector<int> readers(static_cast<size_t>(g.num_nodes()), 0);
  for (const Node& n : g.nodes())
    for (TensorRef t : n.inputs()) ++readers[static_cast<size_t>(t.node)];
  for (TensorRef t : g.outputs()) readers[static_cast<size_t>(t.node)] += 2;  // never folded away
  return readers;
}

void fold_batchnorms(Graph& g) {
  const NodeId original = g.num_nodes();
  const std::vector<int> readers = reader_counts(g);
  bool changed = false;
  for (NodeId id = 0; id < original; ++id) {
    if (!foldable_batchnorm(g, g.node(id))) continue;
    std::optional<ConvBias> cb = folding_conv(g, g.node(id).inputs()[0], readers);
    if (!cb) continue;
    fold(g, id, *cb);
    changed = true;
  }
  if (changed) g.remove_unused();
}

}  // namespace superopt::onnx_import
