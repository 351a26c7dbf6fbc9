// The plain convolutional networks of MetaFlow's search experiment (Table 3):
// AlexNet and VGG16, without their fully connected classifiers (as the other
// CNNs of the zoo), batch 1, relu fused into every convolution.
#include <string>

#include "runtime/models/model_builder.h"
#include "runtime/models/models.h"

namespace superopt::models {
namespace {

constexpr Activation kRelu = Activation::relu;

TensorRef max_pool(ModelBuilder& m, const std::string& name, TensorRef x, int k, int stride) {
  return m.pool(OpType::pool_max, name, x, k, stride, Padding::valid);
}

}  // namespace

// AlexNet (Krizhevsky et al. 2012, one-tower channels as in torchvision):
// input 1x3x227x227 (the size at which 11x11/4 without padding gives 55),
// conv 11x11/4 to 64, max pool 3/2 (27), conv 5x5 to 192, max pool 3/2 (13),
// conv 3x3 to 384, 256, 256, max pool 3/2; output 1x256x6x6.
Graph alexnet() {
  ModelBuilder m;
  TensorRef t = m.conv("conv1", m.input("data", {1, 3, 227, 227}), 64, 11, 11, 4, Padding::valid, kRelu);
  t = max_pool(m, "pool1", t, 3, 2);
  t = m.conv("conv2", t, 192, 5, kRelu);
  t = max_pool(m, "pool2", t, 3, 2);
  t = m.conv("conv3", t, 384, 3, kRelu);
  t = m.conv("conv4", t, 256, 3, kRelu);
  t = m.conv("conv5", t, 256, 3, kRelu);
  m.output(max_pool(m, "pool5", t, 3, 2));
  return std::move(m.graph);
}

// VGG16 (Simonyan & Zisserman 2014, configuration D): input 1x3x224x224,
// 13 same-padded 3x3 convolutions in 5 stages of 2, 2, 3, 3, 3 at
// 64/128/256/512/512 channels, each stage closed by a 2x2/2 max pool; output
// 1x512x7x7.
Graph vgg16() {
  ModelBuilder m;
  const int stage_convs[5] = {2, 2, 3, 3, 3};
  const int64_t widths[5] = {64, 128, 256, 512, 512};
  TensorRef t = m.input("data", {1, 3, 224, 224});
  for (int stage = 0; stage < 5; ++stage) {
    std::string name = "stage" + std::to_string(stage + 1);
    for (int k = 0; k < stage_convs[stage]; ++k)
      t = m.conv(name + ".conv" + std::to_string(k + 1), t, widths[stage], 3, kRelu);
    t = max_pool(m, name + ".pool", t, 2, 2);
  }
  m.output(t);
  return std::move(m.graph);
}

}  // namespace superopt::models
