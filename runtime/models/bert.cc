// BERT as TASO built it (examples/bert.py), with TASO's wiring bug fixed: its
// script feeds the layer's input, not the attention output, to the final
// linear layer, which leaves the attention dead. Here the attention output
// feeds it, and a softmax over the keys is added as in Vaswani et al.
#include <string>

#include "runtime/models/model_builder.h"
#include "runtime/models/models.h"

namespace superopt::models {
namespace {

constexpr int64_t kSequence = 64, kHidden = 1024, kHeads = 16, kHeadSize = kHidden / kHeads;

// One attention layer, 6 matmuls: Q, K, V (64x1024 · 1024x1024); per head
// Q K^T (16 batched 64x64 · 64x64); softmax over the keys; · V; back to
// 64x1024; the final linear layer (64x1024 · 1024x1024).
TensorRef attention(ModelBuilder& m, const std::string& name, TensorRef x) {
  auto heads = [&](const std::string& n, TensorRef t, std::initializer_list<int> perm) {
    return m.transpose(name + "." + n + ".heads",
                       m.reshape(name + "." + n + ".split", t, {kSequence, kHeads, kHeadSize}), perm);
  };
  TensorRef q = heads("q", m.linear(name + ".q", x, kHidden), {1, 0, 2});  // 16x64x64: head, query, d
  TensorRef k = heads("k", m.linear(name + ".k", x, kHidden), {1, 2, 0});  // 16x64x64: head, d, key
  TensorRef v = heads("v", m.linear(name + ".v", x, kHidden), {1, 0, 2});  // 16x64x64: head, key, d
  TensorRef logits = m.op(OpType::matmul, name + ".qk", {q, k});
  OpParams last;
  last.axis = 2;
  TensorRef probs = m.op(OpType::softmax, name + ".softmax", {logits}, last);
  TensorRef context = m.op(OpType::matmul, name + ".pv", {probs, v});
  context = m.transpose(name + ".merge", context, {1, 0, 2});
  context = m.reshape(name + ".concat_heads", context, {kSequence, kHidden});
  return m.linear(name + ".output", context, kHidden);
}

}  // namespace

// Sequence length 64, hidden 1024, 16 heads of 64, 8 layers, batch 1: the
// input 64x1024 goes through relu (as in TASO's script), then 8 attention
// layers in a chain. No embeddings, layer norms or feed-forward blocks, as in
// TASO's version. 48 matmuls.
Graph bert() {
  ModelBuilder m;
  TensorRef t = m.op(OpType::relu, "input.relu", {m.input("data", {kSequence, kHidden})});
  for (int layer = 0; layer < 8; ++layer) t = attention(m, "layer" + std::to_string(layer), t);
  m.output(t);
  return std::move(m.graph);
}

}  // namespace superopt::models
