// The ResNet family: TASO's ResNet-50 and ResNeXt-50, MetaFlow's ResNet-18/34
// and OCGGS's stacked ResNet blocks. Batch norm is folded into the convolutions
// (inference), so a layer is a convolution with relu fused where it has one.
#include <string>

#include "runtime/models/model_builder.h"
#include "runtime/models/models.h"

namespace superopt::models {
namespace {

constexpr Activation kRelu = Activation::relu;
constexpr Activation kNone = Activation::none;

// The stages of ResNet-50/ResNeXt-50/ResNet-34: blocks per stage.
constexpr int kStageBlocks[4] = {3, 4, 6, 3};

std::string block_name(int stage, int block) {
  return "stage" + std::to_string(stage + 1) + ".block" + std::to_string(block);
}

// Residual join: ewadd then relu. The shortcut is a stride-s 1x1 projection
// (no relu, as in He et al.) when the shape changes.
TensorRef residual(ModelBuilder& m, const std::string& name, TensorRef x, TensorRef branch, int stride) {
  TensorRef shortcut = x;
  if (stride > 1 || m.channels(x) != m.channels(branch))
    shortcut = m.conv(name + ".shortcut", x, m.channels(branch), 1, 1, stride, Padding::same, kNone);
  TensorRef sum = m.op(OpType::ewadd, name + ".add", {shortcut, branch});
  return m.op(OpType::relu, name + ".relu", {sum});
}

// 1x1 to width, 3x3 (stride, groups) at width, 1x1 to out_channels; the stride
// sits on the 3x3 convolution as in TASO's resnet50.py and resnext50.py.
TensorRef bottleneck(ModelBuilder& m, const std::string& name, TensorRef x, int64_t width,
                     int64_t out_channels, int stride, int64_t groups) {
  TensorRef t = m.conv(name + ".conv1", x, width, 1, kRelu);
  t = m.conv(name + ".conv2", t, width, 3, 3, stride, Padding::same, kRelu, groups);
  t = m.conv(name + ".conv3", t, out_channels, 1, kNone);
  return residual(m, name, x, t, stride);
}

// Two 3x3 convolutions (ResNet-18/34's basic block).
TensorRef basic_block(ModelBuilder& m, const std::string& name, TensorRef x, int64_t width, int stride) {
  TensorRef t = m.conv(name + ".conv1", x, width, 3, 3, stride, Padding::same, kRelu);
  t = m.conv(name + ".conv2", t, width, 3, kNone);
  return residual(m, name, x, t, stride);
}

// 7x7 stride-2 convolution to 64 channels with relu, 3x3 stride-2 max pool: 224 -> 56.
TensorRef imagenet_stem(ModelBuilder& m, TensorRef x) {
  TensorRef t = m.conv("stem.conv", x, 64, 7, 7, 2, Padding::same, kRelu);
  return m.pool(OpType::pool_max, "stem.pool", t, 3, 2, Padding::same);
}

// Four stages of bottlenecks; stages 2-4 start with a stride-2 block.
TensorRef bottleneck_stages(ModelBuilder& m, TensorRef t, const int64_t (&widths)[4], int64_t expansion,
                            int64_t groups) {
  for (int stage = 0; stage < 4; ++stage)
    for (int block = 0; block < kStageBlocks[stage]; ++block) {
      int stride = (stage > 0 && block == 0) ? 2 : 1;
      t = bottleneck(m, block_name(stage, block), t, widths[stage], widths[stage] * expansion, stride,
                     groups);
    }
  return t;
}

// ImageNet stem, then basic blocks per stage at 64/128/256/512 channels
// (ResNet-18/34); stages 2-4 start with a stride-2 block.
Graph basic_resnet(const int (&stage_blocks)[4]) {
  ModelBuilder m;
  const int64_t widths[4] = {64, 128, 256, 512};
  TensorRef t = imagenet_stem(m, m.input("data", {1, 3, 224, 224}));
  for (int stage = 0; stage < 4; ++stage)
    for (int block = 0; block < stage_blocks[stage]; ++block)
      t = basic_block(m, block_name(stage, block), t, widths[stage], (stage > 0 && block == 0) ? 2 : 1);
  m.output(t);
  return std::move(m.graph);
}

}  // namespace

// TASO's ResNet-50 (examples/resnet50.py): input 1x64x56x56, i.e. after the
// stem, no classifier; bottlenecks [3,4,6,3] at widths 64/128/256/512,
// expansion 4. Differs from TASO only in the projection shortcut, which has no
// relu here (as in He et al.).
Graph resnet50() {
  ModelBuilder m;
  const int64_t widths[4] = {64, 128, 256, 512};
  m.output(bottleneck_stages(m, m.input("data", {1, 64, 56, 56}), widths, 4, 1));
  return std::move(m.graph);
}

// TASO's ResNeXt-50 (examples/resnext50.py, Xie et al. 32x4d with TASO's
// widths): ImageNet stem, then bottlenecks [3,4,6,3] at widths
// 128/256/512/1024 whose 3x3 convolution has 32 groups, output twice the
// width; no classifier.
Graph resnext50() {
  ModelBuilder m;
  const int64_t widths[4] = {128, 256, 512, 1024};
  TensorRef t = imagenet_stem(m, m.input("data", {1, 3, 224, 224}));
  m.output(bottleneck_stages(m, t, widths, 2, 32));
  return std::move(m.graph);
}

// ResNet-34 as MetaFlow used it (He et al. Table 1): ImageNet stem, basic
// blocks [3,4,6,3] at 64/128/256/512 channels; no classifier.
Graph resnet34() {
  return basic_resnet(kStageBlocks);
}

// ResNet-18 as in MetaFlow's search experiment (Table 3): ResNet-34 with
// basic blocks [2,2,2,2]; no classifier.
Graph resnet18() {
  const int blocks[4] = {2, 2, 2, 2};
  return basic_resnet(blocks);
}

// OCGGS's scaling experiment (section 6.3): K ResNet blocks of 5 operators
// each (3 convolutions, ewadd, relu). We use ResNet-50's stage-1 bottleneck
// without projection: 256 channels at 56x56, width 64.
Graph resnet_blocks(int blocks) {
  ModelBuilder m;
  TensorRef t = m.input("data", {1, 256, 56, 56});
  for (int k = 0; k < blocks; ++k) t = bottleneck(m, "block" + std::to_string(k), t, 64, 256, 1, 1);
  m.output(t);
  return std::move(m.graph);
}

}  // namespace superopt::models
