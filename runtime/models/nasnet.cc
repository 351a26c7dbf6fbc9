// NASNet-A (Zoph et al. 2018) as TASO built it (examples/nasnet_a.py), whose
// cells TASO's Figure 8a draws. Cell structure written here:
//   both cells first squeeze `cur` (the previous cell's output) and `prev` (the
//   cell before) with a 1x1 convolution + relu to the cell's channels (TASO's
//   `fit` has a 3x3 stride-2 variant for a prev at twice the resolution, which
//   its loop never reaches: prev and cur always share a resolution).
//   normal cell, 5 blocks, each an ewadd of two branches:
//     sep3x3(cur) + cur,  sep3x3(prev) + sep3x3(cur),  avg3x3(cur) + prev,
//     avg3x3(prev) + avg3x3(prev),  sep3x3(prev) + sep3x3(prev);
//   reduction cell (stride 2), 5 blocks:
//     o0 = sep7x7/2(prev) + sep5x5/2(cur),  o1 = max3x3/2(cur) + sep7x7/2(prev),
//     o2 = avg3x3/2(cur) + sep5x5/2(prev),  o3 = max3x3/2(cur) + sep3x3(o0),
//     o4 = avg3x3(o0) + o1;
//   a cell's output is the concatenation of its 5 blocks along channels.
// A separable convolution is a depthwise convolution (groups = channels,
// weight [C,1,k,k]) followed by a 1x1 convolution (TASO's script used
// [C,C/C_out,k,k] grouping, which is depthwise here since C = C_out).
#include <string>
#include <vector>

#include "runtime/models/model_builder.h"
#include "runtime/models/models.h"

namespace superopt::models {
namespace {

constexpr Activation kRelu = Activation::relu;
constexpr Activation kNone = Activation::none;

TensorRef separable(ModelBuilder& m, const std::string& name, TensorRef x, int64_t out, int k, int stride) {
  int64_t c = m.channels(x);
  TensorRef d = m.conv(name + ".depthwise", x, c, k, k, stride, Padding::same, kNone, c);
  return m.conv(name + ".pointwise", d, out, 1, kNone);
}

TensorRef pool(ModelBuilder& m, OpType op, const std::string& name, TensorRef x, int stride) {
  return m.pool(op, name, x, 3, stride, Padding::same);
}

TensorRef squeeze(ModelBuilder& m, const std::string& name, TensorRef x, int64_t out) {
  return m.conv(name, x, out, 1, kRelu);
}

TensorRef add(ModelBuilder& m, const std::string& name, TensorRef a, TensorRef b) {
  return m.op(OpType::ewadd, name, {a, b});
}

TensorRef normal_cell(ModelBuilder& m, const std::string& name, TensorRef prev, TensorRef cur, int64_t c) {
  cur = squeeze(m, name + ".squeeze", cur, c);
  prev = squeeze(m, name + ".fit", prev, c);
  auto sep3 = [&](const std::string& n, TensorRef x) { return separable(m, name + "." + n, x, c, 3, 1); };
  auto avg3 = [&](const std::string& n, TensorRef x) {
    return pool(m, OpType::pool_avg, name + "." + n, x, 1);
  };
  std::vector<TensorRef> blocks = {
      add(m, name + ".add0", sep3("b0.sep3x3", cur), cur),
      add(m, name + ".add1", sep3("b1.sep3x3_prev", prev), sep3("b1.sep3x3_cur", cur)),
      add(m, name + ".add2", avg3("b2.avg3x3", cur), prev),
      add(m, name + ".add3", avg3("b3.avg3x3_a", prev), avg3("b3.avg3x3_b", prev)),
      add(m, name + ".add4", sep3("b4.sep3x3_a", prev), sep3("b4.sep3x3_b", prev)),
  };
  return m.concat(name + ".concat", blocks, 1);
}

TensorRef reduction_cell(ModelBuilder& m, const std::string& name, TensorRef prev, TensorRef cur, int64_t c) {
  cur = squeeze(m, name + ".squeeze", cur, c);
  prev = squeeze(m, name + ".fit", prev, c);
  auto sep = [&](const std::string& n, TensorRef x, int k, int stride) {
    return separable(m, name + "." + n, x, c, k, stride);
  };
  auto pool2 = [&](OpType op, const std::string& n, TensorRef x) {
    return pool(m, op, name + "." + n, x, 2);
  };
  TensorRef o0 = add(m, name + ".add0", sep("b0.sep7x7", prev, 7, 2), sep("b0.sep5x5", cur, 5, 2));
  TensorRef o1 =
      add(m, name + ".add1", pool2(OpType::pool_max, "b1.max3x3", cur), sep("b1.sep7x7", prev, 7, 2));
  TensorRef o2 =
      add(m, name + ".add2", pool2(OpType::pool_avg, "b2.avg3x3", cur), sep("b2.sep5x5", prev, 5, 2));
  TensorRef o3 =
      add(m, name + ".add3", pool2(OpType::pool_max, "b3.max3x3", cur), sep("b3.sep3x3", o0, 3, 1));
  TensorRef o4 = add(m, name + ".add4", pool(m, OpType::pool_avg, name + ".b4.avg3x3", o0, 1), o1);
  return m.concat(name + ".concat", {o0, o1, o2, o3, o4}, 1);
}

}  // namespace

// Input 1x3x224x224, ResNeXt's stem (7x7/2 to 64 with relu, max pool 3x3/2);
// 3 stages of 5 normal cells at 128, 256, 512 channels, each stage followed
// by a reduction cell at twice the channels (TASO's loop); no classifier.
// Output 1x5120x7x7 (5 blocks of 1024 channels).
Graph nasnet_a() {
  ModelBuilder m;
  TensorRef t = m.conv("stem.conv", m.input("data", {1, 3, 224, 224}), 64, 7, 7, 2, Padding::same, kRelu);
  t = m.pool(OpType::pool_max, "stem.pool", t, 3, 2, Padding::same);
  int64_t channels = 128;
  for (int stage = 0; stage < 3; ++stage, channels *= 2) {
    std::string prefix = "stage" + std::to_string(stage + 1);
    TensorRef prev = t, cur = t;
    for (int cell = 0; cell < 5; ++cell) {
      TensorRef next = normal_cell(m, prefix + ".normal" + std::to_string(cell), prev, cur, channels);
      prev = cur;
      cur = next;
    }
    t = reduction_cell(m, prefix + ".reduction", prev, cur, channels * 2);
  }
  m.output(t);
  return std::move(m.graph);
}

}  // namespace superopt::models
