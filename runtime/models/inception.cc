// Inception-v3 (Szegedy et al. 2016, as MetaFlow used it) and OCGGS's stacked
// Inception-E blocks. Batch norm is folded into the convolutions, each of
// which has relu fused, as in the torchvision/TensorFlow reference models.
#include <string>

#include "runtime/models/model_builder.h"
#include "runtime/models/models.h"

namespace superopt::models {
namespace {

constexpr Activation kRelu = Activation::relu;

// A convolution with relu, kh x kw, same padding, stride 1: the common layer.
TensorRef layer(ModelBuilder& m, const std::string& name, TensorRef x, int64_t out, int kh, int kw) {
  return m.conv(name, x, out, kh, kw, 1, Padding::same, kRelu);
}

TensorRef avg_pool_branch(ModelBuilder& m, const std::string& name, TensorRef x, int64_t out) {
  TensorRef p = m.pool(OpType::pool_avg, name + ".pool", x, 3, 1, Padding::same);
  return layer(m, name + ".conv", p, out, 1, 1);
}

// Figure 5 of the paper (35x35): 1x1 | 1x1,5x5 | 1x1,3x3,3x3 | avgpool,1x1.
TensorRef inception_a(ModelBuilder& m, const std::string& name, TensorRef x, int64_t pool_features) {
  TensorRef b1 = layer(m, name + ".b1x1", x, 64, 1, 1);
  TensorRef b5 = layer(m, name + ".b5x5_1", x, 48, 1, 1);
  b5 = layer(m, name + ".b5x5_2", b5, 64, 5, 5);
  TensorRef b3 = layer(m, name + ".b3x3dbl_1", x, 64, 1, 1);
  b3 = layer(m, name + ".b3x3dbl_2", b3, 96, 3, 3);
  b3 = layer(m, name + ".b3x3dbl_3", b3, 96, 3, 3);
  TensorRef bp = avg_pool_branch(m, name + ".bpool", x, pool_features);
  return m.concat(name + ".concat", {b1, b5, b3, bp}, 1);
}

// Grid reduction 35 -> 17: 3x3/2 | 1x1,3x3,3x3/2 | maxpool/2.
TensorRef inception_b(ModelBuilder& m, const std::string& name, TensorRef x) {
  TensorRef b3 = m.conv(name + ".b3x3", x, 384, 3, 3, 2, Padding::valid, kRelu);
  TensorRef bd = layer(m, name + ".b3x3dbl_1", x, 64, 1, 1);
  bd = layer(m, name + ".b3x3dbl_2", bd, 96, 3, 3);
  bd = m.conv(name + ".b3x3dbl_3", bd, 96, 3, 3, 2, Padding::valid, kRelu);
  TensorRef bp = m.pool(OpType::pool_max, name + ".bpool", x, 3, 2, Padding::valid);
  return m.concat(name + ".concat", {b3, bd, bp}, 1);
}

// Figure 6 (17x17) with n = 7: factorised 1x7/7x1 convolutions at c7 channels.
TensorRef inception_c(ModelBuilder& m, const std::string& name, TensorRef x, int64_t c7) {
  TensorRef b1 = layer(m, name + ".b1x1", x, 192, 1, 1);
  TensorRef b7 = layer(m, name + ".b7x7_1", x, c7, 1, 1);
  b7 = layer(m, name + ".b7x7_2", b7, c7, 1, 7);
  b7 = layer(m, name + ".b7x7_3", b7, 192, 7, 1);
  TensorRef bd = layer(m, name + ".b7x7dbl_1", x, c7, 1, 1);
  bd = layer(m, name + ".b7x7dbl_2", bd, c7, 7, 1);
  bd = layer(m, name + ".b7x7dbl_3", bd, c7, 1, 7);
  bd = layer(m, name + ".b7x7dbl_4", bd, c7, 7, 1);
  bd = layer(m, name + ".b7x7dbl_5", bd, 192, 1, 7);
  TensorRef bp = avg_pool_branch(m, name + ".bpool", x, 192);
  return m.concat(name + ".concat", {b1, b7, bd, bp}, 1);
}

// Grid reduction 17 -> 8: 1x1,3x3/2 | 1x1,1x7,7x1,3x3/2 | maxpool/2.
TensorRef inception_d(ModelBuilder& m, const std::string& name, TensorRef x) {
  TensorRef b3 = layer(m, name + ".b3x3_1", x, 192, 1, 1);
  b3 = m.conv(name + ".b3x3_2", b3, 320, 3, 3, 2, Padding::valid, kRelu);
  TensorRef b7 = layer(m, name + ".b7x7x3_1", x, 192, 1, 1);
  b7 = layer(m, name + ".b7x7x3_2", b7, 192, 1, 7);
  b7 = layer(m, name + ".b7x7x3_3", b7, 192, 7, 1);
  b7 = m.conv(name + ".b7x7x3_4", b7, 192, 3, 3, 2, Padding::valid, kRelu);
  TensorRef bp = m.pool(OpType::pool_max, name + ".bpool", x, 3, 2, Padding::valid);
  return m.concat(name + ".concat", {b3, b7, bp}, 1);
}

// Figure 7 (8x8), 13 operators: 1x1 | 1x1,(1x3|3x1) | 1x1,3x3,(1x3|3x1) |
// avgpool,1x1; the two inner pairs are concatenated first, as in torchvision.
TensorRef inception_e(ModelBuilder& m, const std::string& name, TensorRef x) {
  TensorRef b1 = layer(m, name + ".b1x1", x, 320, 1, 1);
  TensorRef b3 = layer(m, name + ".b3x3_1", x, 384, 1, 1);
  b3 = m.concat(name + ".b3x3_cat",
                {layer(m, name + ".b3x3_2a", b3, 384, 1, 3), layer(m, name + ".b3x3_2b", b3, 384, 3, 1)}, 1);
  TensorRef bd = layer(m, name + ".b3x3dbl_1", x, 448, 1, 1);
  bd = layer(m, name + ".b3x3dbl_2", bd, 384, 3, 3);
  bd = m.concat(
      name + ".b3x3dbl_cat",
      {layer(m, name + ".b3x3dbl_3a", bd, 384, 1, 3), layer(m, name + ".b3x3dbl_3b", bd, 384, 3, 1)}, 1);
  TensorRef bp = avg_pool_branch(m, name + ".bpool", x, 192);
  return m.concat(name + ".concat", {b1, b3, bd, bp}, 1);
}

// 299 -> 35: the paper's Table 1 stem (valid padding where it shrinks the grid).
TensorRef stem(ModelBuilder& m, TensorRef x) {
  TensorRef t = m.conv("stem.conv1", x, 32, 3, 3, 2, Padding::valid, kRelu);  // 149
  t = m.conv("stem.conv2", t, 32, 3, 3, 1, Padding::valid, kRelu);            // 147
  t = layer(m, "stem.conv3", t, 64, 3, 3);                                    // 147
  t = m.pool(OpType::pool_max, "stem.pool1", t, 3, 2, Padding::valid);        // 73
  t = m.conv("stem.conv4", t, 80, 1, 1, 1, Padding::valid, kRelu);            // 73
  t = m.conv("stem.conv5", t, 192, 3, 3, 1, Padding::valid, kRelu);           // 71
  return m.pool(OpType::pool_max, "stem.pool2", t, 3, 2, Padding::valid);     // 35
}

}  // namespace

// Inception-v3 as in torchvision (Mixed_5b to Mixed_7c): input 1x3x299x299,
// stem, 3 A modules, B, 4 C modules (c7 = 128, 160, 160, 192), D, 2 E modules;
// output 1x2048x8x8, without the auxiliary and final classifiers.
Graph inception_v3() {
  ModelBuilder m;
  TensorRef t = stem(m, m.input("data", {1, 3, 299, 299}));
  t = inception_a(m, "mixed5b", t, 32);
  t = inception_a(m, "mixed5c", t, 64);
  t = inception_a(m, "mixed5d", t, 64);
  t = inception_b(m, "mixed6a", t);
  const int64_t c7[4] = {128, 160, 160, 192};
  const char* names[4] = {"mixed6b", "mixed6c", "mixed6d", "mixed6e"};
  for (int i = 0; i < 4; ++i) t = inception_c(m, names[i], t, c7[i]);
  t = inception_d(m, "mixed7a", t);
  t = inception_e(m, "mixed7b", t);
  t = inception_e(m, "mixed7c", t);
  m.output(t);
  return std::move(m.graph);
}

// OCGGS's scaling experiment (section 6.3): K Inception-E blocks of 13
// operators, starting where Inception-v3's do: 1x1280x8x8 in, 2048 channels
// out of every block.
Graph inceptione_blocks(int blocks) {
  ModelBuilder m;
  TensorRef t = m.input("data", {1, 1280, 8, 8});
  for (int k = 0; k < blocks; ++k) t = inception_e(m, "block" + std::to_string(k), t);
  m.output(t);
  return std::move(m.graph);
}

}  // namespace superopt::models
