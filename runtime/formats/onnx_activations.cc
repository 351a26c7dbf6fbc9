// Canonicalization on import: the activations PyTorch's exporter writes as
// several nodes become our one operator, which the CPU executor runs as one
// oneDNN eltwise primitive (swish, gelu_erf, hardswish):
//   x * sigmoid(x)                           -> silu(x)
//   x * hardsigmoid(x)                       -> hardswish(x)  (opsets before 14)
//   (x * (erf(x / sqrt(2)) + 1)) * 1/2       -> gelu(x)
// The constant sqrt(2) arrives rounded to float32 (1.7e-8 off); the pattern
// reads it as sqrt(2), as the PyTorch module computes it.
#include <cmath>
#include <optional>

#include "runtime/formats/onnx_importer.h"

namespace superopt::onnx_import {
namespace {

// The value of a one-element weight with data.
std::optional<float> scalar_weight(const Graph& g, TensorRef t) {
  if (g.node(t.node).op != OpType::weight) return std::nullopt;
  const std::vector<float>* data = g.weight_data(t.node);
  if (!data || data->size() != 1) return std::nullopt;
  return (*data)[0];
}

bool is(const Graph& g, TensorRef t, OpType op) {
  return g.node(t.node).op == op;
}

// The other input of a binary node when one of its inputs satisfies `which`.
template <class Pred>
std::optional<std::pair<TensorRef, TensorRef>> operands(const Node& n, Pred which) {
  for (int k = 0; k < 2; ++k)
    if (which(n.inputs()[k])) return std::make_pair(n.inputs()[k], n.inputs()[1 - k]);
  return std::nullopt;
}

// x when m is x * f(x) for the unary op f.
std::optional<TensorRef> times_own(const Graph& g, const Node& m, OpType f) {
  for (int k = 0; k < 2; ++k) {
    const TensorRef x = m.inputs()[k], fx = m.inputs()[1 - k];
    if (is(g, fx, f) && g.node(fx.node).inputs()[0] == x) return x;
  }
  return std::nullopt;
}

// x when m is (x * (erf(x / sqrt(2)) + 1)) * 1/2.
std::optional<TensorRef> gelu_input(const Graph& g, const Node& m) {
  auto half = operands(m, [&](TensorRef t) { return scalar_weight(g, t) == 0.5f; });
  if (!half || !is(g, half->second, OpType::ewmul)) return std::nullopt;
  const Node& m1 = g.node(half->second.node);
  for (int k = 0; k < 2; ++k) {
    const TensorRef x = m1.inputs()[k], a = m1.inputs()[1 - k];
    if (!is(g, a, OpType::ewadd)) continue;
    auto one = operands(g.node(a.node), [&](TensorRef t) { return scalar_weight(g, t) == 1.0f; });
    if (!one || !is(g, one->second, OpType::erf)) continue;
    const TensorRef d = g.node(one->second.node).inputs()[0];
    if (!is(g, d, OpType::ewdiv) || g.node(d.node).inputs()[0] != x) continue;
    if (scalar_weight(g, g.node(d.node).inputs()[1]) == static_cast<float>(std::sqrt(2.0))) return x;
  }
  return std::nullopt;
}

}  // namespace

void fuse_activations(Graph& g) {
  const NodeId original = g.num_nodes();
  bool changed = false;
  for (NodeId id = 0; id < original; ++id) {
    const Node& m = g.node(id);
    if (m.op != OpType::ewmul) continue;
    std::optional<TensorRef> x;
    OpType fused = OpType::silu;
    if ((x = times_own(g, m, OpType::sigmoid))) {
      fused = OpType::silu;
    } else if ((x = times_own(g, m, OpType::hardsigmoid))) {
      fused = OpType::hardswish;
    } else if ((x = gelu_input(g, m))) {
      fused = OpType::gelu;
    }
    if (!x || g.shape(*x) != m.output(0).shape) continue;  // a broadcast product is not the activation
    const std::string name = m.name.str();                 // the ONNX output's name; the old node goes unused
    const NodeId f = g.add(fused, {*x}, {}, name);
    g.replace_uses({id, 0}, {f, 0});
    changed = true;
  }
  if (changed) g.remove_unused();
}

}  // namespace superopt::onnx_import
