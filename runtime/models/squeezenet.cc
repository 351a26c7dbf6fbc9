// SqueezeNet 1.1 (Iandola et al. 2016; the 1.1 revision in the authors'
// repository), as MetaFlow used it.
#include <string>

#include "runtime/models/model_builder.h"
#include "runtime/models/models.h"

namespace superopt::models {
namespace {

constexpr Activation kRelu = Activation::relu;

// A fire module: squeeze 1x1, then expand 1x1 and 3x3 side by side, concatenated.
TensorRef fire(ModelBuilder& m, const std::string& name, TensorRef x, int64_t squeeze, int64_t expand) {
  TensorRef s = m.conv(name + ".squeeze", x, squeeze, 1, kRelu);
  TensorRef e1 = m.conv(name + ".expand1x1", s, expand, 1, kRelu);
  TensorRef e3 = m.conv(name + ".expand3x3", s, expand, 3, kRelu);
  return m.concat(name + ".concat", {e1, e3}, 1);
}

TensorRef max_pool(ModelBuilder& m, const std::string& name, TensorRef x) {
  return m.pool(OpType::pool_max, name, x, 3, 2, Padding::valid);
}

}  // namespace

// Input 1x3x224x224; conv 3x3/2 to 64 (111x111), max pools 3x3/2 (55, 27,
// 13), fire2-fire9; the network's own classifier (1x1 convolution to 1000
// classes with relu, then 13x13 global average pooling) is kept, as it has no
// fully connected layer. Output 1x1000x1x1.
Graph squeezenet() {
  ModelBuilder m;
  TensorRef t = m.conv("conv1", m.input("data", {1, 3, 224, 224}), 64, 3, 3, 2, Padding::valid, kRelu);
  t = max_pool(m, "pool1", t);
  t = fire(m, "fire2", t, 16, 64);
  t = fire(m, "fire3", t, 16, 64);
  t = max_pool(m, "pool3", t);
  t = fire(m, "fire4", t, 32, 128);
  t = fire(m, "fire5", t, 32, 128);
  t = max_pool(m, "pool5", t);
  t = fire(m, "fire6", t, 48, 192);
  t = fire(m, "fire7", t, 48, 192);
  t = fire(m, "fire8", t, 64, 256);
  t = fire(m, "fire9", t, 64, 256);
  t = m.conv("conv10", t, 1000, 1, kRelu);
  m.output(m.pool(OpType::pool_avg, "pool10", t, 13, 1, Padding::valid));
  return std::move(m.graph);
}

}  // namespace superopt::models
