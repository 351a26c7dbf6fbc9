// Rules for the tests of derivations output by output (verify/derive.h,
// derive_by_outputs): a two-output rule whose outputs share a convolution, so
// that the whole-rule search cannot fuse relu into it (the convolution is
// read elsewhere) and the target, computing it once per output, never meets
// the source, while each output alone is one step or none.
#pragma once

#include "tests/class_path_fixture.h"

namespace superopt::test {

// c = conv(x, w); relu(c) and c  ->  conv[relu](x, w) and conv(x, w).
inline Rule shared_conv_rule(RuleStatus status) {
  RuleBuilder r;
  auto [x, xb] = r.input("x", Shape{1, 4, 5, 5});
  auto [w, wb] = r.input("w", Shape{4, 4, 3, 3}, true);
  OpParams fused;
  fused.activation = Activation::relu;
  const TensorRef c = op(r.source, OpType::conv2d, {x, w});
  r.source.add_output(op(r.source, OpType::relu, {c}));
  r.source.add_output(c);
  r.target.add_output(op(r.target, OpType::conv2d, {xb, wb}, fused));
  r.target.add_output(op(r.target, OpType::conv2d, {xb, wb}));
  Rule rule = r.rule();
  rule.status = status;
  return rule;
}

// The conv-relu rule (the base), then the shared-convolution rule.
inline RuleDatabase base_then_shared(RuleStatus base) {
  return database({conv_relu_rule(4, base), shared_conv_rule(RuleStatus::candidate)});
}

}  // namespace superopt::test
