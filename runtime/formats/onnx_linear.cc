// Canonicalization on import: a bias add after a product by a constant matrix
// becomes one linear layer (PyTorch's Linear, ONNX's Gemm with its C), so that
// the rules over linear layers meet imported transformers and classifier heads:
//   ewadd(matmul(x, W), b)  ->  linear(x, W, reshape(b, [N]))
// where W [K, N] and b ([N], or [1, ..., 1, N] of at most the output's rank) are
// weight-only, and the matmul has no other reader, is not a graph output and
// runs (not weight-only). Exact: the kernel adds the bias to each row's sums, as
// the add did after them.
#include <optional>
#include <vector>

#include "runtime/formats/onnx_importer.h"

namespace superopt::onnx_import {
namespace {

bool row_bias(const Shape& b, const Shape& out) {
  if (b.rank() < 1 || b.rank() > out.rank() || b.back(0) != out.back(0)) return false;
  for (int i = 0; i + 1 < b.rank(); ++i)
    if (b[i] != 1) return false;
  return true;
}

// The product and bias of an add that can become one linear layer.
std::optional<BiasAdd> product_add(const Graph& g, const Node& add, const std::vector<int>& readers,
                                   const std::vector<bool>& weight_only) {
  if (add.op != OpType::ewadd) return std::nullopt;
  for (int k = 0; k < 2; ++k) {
    const TensorRef m = add.inputs()[k], b = add.inputs()[1 - k];
    const Node& product = g.node(m.node);
    if (product.op != OpType::matmul || readers[size_t(m.node)] != 1 || weight_only[size_t(m.node)]) continue;
    const TensorRef w = product.inputs()[1];
    if (!weight_only[size_t(w.node)] || g.shape(w).rank() != 2) continue;
    if (!weight_only[size_t(b.node)] || !row_bias(g.shape(b), g.shape(m))) continue;
    if (add.output(0).shape != product.output(0).shape) continue;  // the add must not broadcast the product
    return BiasAdd{m.node, b, OpType::linear, OpParams{}};
  }
  return std::nullopt;
}

}  // namespace

void take_linear_biases(Graph& g) {
  take_bias_adds(g, product_add);
}

}  // namespace superopt::onnx_import
