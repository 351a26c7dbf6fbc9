// The recurrent models: TASO's NASRNN and MetaFlow's SRU, unrolled over a
// short sequence at batch 1. Weights are shared across time steps, as in a
// real recurrent network (TASO's script makes new ones per step; the work per
// step is the same).
#include <string>
#include <string_view>

#include "runtime/models/model_builder.h"
#include "runtime/models/models.h"

namespace superopt::models {
namespace {

constexpr int kSequenceLength = 5;

// "x3": appending, not operator+, which GCC 12 warns about falsely (-Wrestrict).
std::string indexed(std::string_view base, int index) {
  return std::string(base).append(std::to_string(index));
}

}  // namespace

// NASRNN (Zoph & Le 2017) as in TASO's examples/nasrnn.py: hidden 512,
// sequence length 5, batch 1. Each step has 8 gates g_i = x_t·W_i + h·U_i
// (2 matmuls and an ewadd each), combined by TASO's fixed tree:
//   m0 = relu(g0) + sigmoid(g3)        m1 = sigmoid(g1) + tanh(g2)
//   m2 = sigmoid(g4) * tanh(g5)        m3 = sigmoid(g6) * relu(g7)
//   m4 = sigmoid(m1) + tanh(m2)        m5 = tanh(m0) * tanh(m3)
//   h' = tanh(tanh(m4) * tanh(m5))
// Inputs x0..x4 (1x512) and the initial state h0 (an input here; TASO used a
// weight, which would make step 0's h·U_i constants); output: the last h.
Graph nasrnn() {
  constexpr int64_t hidden = 512;
  ModelBuilder m;
  TensorRef w[8], u[8];
  for (int i = 0; i < 8; ++i) {
    w[i] = m.weight(indexed("gate", i) + ".W", {hidden, hidden});
    u[i] = m.weight(indexed("gate", i) + ".U", {hidden, hidden});
  }
  TensorRef h = m.input("h0", {1, hidden});
  for (int t = 0; t < kSequenceLength; ++t) {
    std::string s = indexed("step", t);
    TensorRef x = m.input(indexed("x", t), {1, hidden});
    TensorRef g[8];
    for (int i = 0; i < 8; ++i) {
      std::string gate = s + indexed(".gate", i);
      g[i] =
          m.op(OpType::ewadd, gate,
               {m.op(OpType::matmul, gate + ".x", {x, w[i]}), m.op(OpType::matmul, gate + ".h", {h, u[i]})});
    }
    auto f = [&](OpType op, const std::string& name, TensorRef a) { return m.op(op, s + "." + name, {a}); };
    auto join = [&](OpType op, const std::string& name, TensorRef a, TensorRef b) {
      return m.op(op, s + "." + name, {a, b});
    };
    using enum OpType;
    TensorRef m0 = join(ewadd, "m0", f(relu, "relu0", g[0]), f(sigmoid, "sigmoid3", g[3]));
    TensorRef m1 = join(ewadd, "m1", f(sigmoid, "sigmoid1", g[1]), f(tanh, "tanh2", g[2]));
    TensorRef m2 = join(ewmul, "m2", f(sigmoid, "sigmoid4", g[4]), f(tanh, "tanh5", g[5]));
    TensorRef m3 = join(ewmul, "m3", f(sigmoid, "sigmoid6", g[6]), f(relu, "relu7", g[7]));
    TensorRef m4 = join(ewadd, "m4", f(sigmoid, "sigmoid_m1", m1), f(tanh, "tanh_m2", m2));
    TensorRef m5 = join(ewmul, "m5", f(tanh, "tanh_m0", m0), f(tanh, "tanh_m3", m3));
    TensorRef m6 = join(ewmul, "m6", f(tanh, "tanh_m4", m4), f(tanh, "tanh_m5", m5));
    h = f(tanh, "h", m6);
  }
  m.output(h);
  return std::move(m.graph);
}

// SRU (Lei et al. 2017), the recurrent unit of MetaFlow's RNNTC and NMT:
// hidden 1024, batch 1; MetaFlow gives no sequence length, so 5 steps. Per step
//   x~ = x W,  f = sigmoid(x W_f + b_f),  r = sigmoid(x W_r + b_r),
//   c' = f * c + (1 - f) * x~ = f * (c - x~) + x~,
//   h  = r * tanh(c') + (1 - r) * x = r * (tanh(c') - x) + x,
// with the subtractions as smul by a constant -1 (a weight with data) and
// ewadd. Inputs x0..x4 (1x1024) and c0; outputs h0..h4, one per step.
Graph sru() {
  constexpr int64_t hidden = 1024;
  ModelBuilder m;
  TensorRef w = m.weight("W", {hidden, hidden});
  TensorRef wf = m.weight("W_f", {hidden, hidden});
  TensorRef wr = m.weight("W_r", {hidden, hidden});
  TensorRef bf = m.weight("b_f", {1, hidden});
  TensorRef br = m.weight("b_r", {1, hidden});
  TensorRef minus_one = {m.graph.add_weight("minus_one", {1}, {-1.0f}), 0};
  TensorRef c = m.input("c0", {1, hidden});
  for (int t = 0; t < kSequenceLength; ++t) {
    std::string s = indexed("step", t);
    TensorRef x = m.input(indexed("x", t), {1, hidden});
    auto op = [&](OpType type, const std::string& name, TensorRef a, TensorRef b) {
      return m.op(type, s + "." + name, {a, b});
    };
    auto sigmoid = [&](const std::string& name, TensorRef a) {
      return m.op(OpType::sigmoid, s + "." + name, {a});
    };
    TensorRef xt = op(OpType::matmul, "xW", x, w);
    TensorRef f = sigmoid("f", op(OpType::ewadd, "f.pre", op(OpType::matmul, "xW_f", x, wf), bf));
    TensorRef r = sigmoid("r", op(OpType::ewadd, "r.pre", op(OpType::matmul, "xW_r", x, wr), br));
    TensorRef c_minus_x = op(OpType::ewadd, "c_minus_x", c, op(OpType::smul, "neg_x", xt, minus_one));
    c = op(OpType::ewadd, "c", op(OpType::ewmul, "f_c", f, c_minus_x), xt);
    TensorRef g = m.op(OpType::tanh, s + ".tanh_c", {c});
    TensorRef g_minus_x = op(OpType::ewadd, "g_minus_x", g, op(OpType::smul, "neg_in", x, minus_one));
    m.output(op(OpType::ewadd, "h", op(OpType::ewmul, "r_g", r, g_minus_x), x));
  }
  return std::move(m.graph);
}

}  // namespace superopt::models
