// Rules for the tests of derivations output by output (verify/derive.h,
// derive_by_outputs): a two-output rule whose outputs share a convolution, the
// cone of each output and its inputs kept by its single-output rule; and a
// two-output rule that takes three fusions in all, more than the whole-rule
// search's two steps, while each output alone takes two.
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

// r = relu(conv(x, w)); relu(conv(r, w)) and relu(conv(r, v))  ->
// t = conv[relu](x, w); conv[relu](t, w) and conv[relu](t, v). The outputs
// share r, so the rule has no parts; fusing relu into each of the three
// convolutions is three steps of the conv-relu rule (one a side is all two
// steps reach), and each output's rule is two.
inline Rule fused_chains_rule(RuleStatus status) {
  RuleBuilder r;
  auto [x, xb] = r.input("x", Shape{1, 4, 5, 5});
  auto [w, wb] = r.input("w", Shape{4, 4, 3, 3}, true);
  auto [v, vb] = r.input("v", Shape{4, 4, 3, 3}, true);
  OpParams fused;
  fused.activation = Activation::relu;
  const TensorRef shared = op(r.source, OpType::relu, {op(r.source, OpType::conv2d, {x, w})});
  for (TensorRef k : {w, v})
    r.source.add_output(op(r.source, OpType::relu, {op(r.source, OpType::conv2d, {shared, k})}));
  const TensorRef t = op(r.target, OpType::conv2d, {xb, wb}, fused);
  for (TensorRef k : {wb, vb}) r.target.add_output(op(r.target, OpType::conv2d, {t, k}, fused));
  Rule rule = r.rule();
  rule.status = status;
  return rule;
}

// The conv-relu rule (the base), then the fused-chains rule.
inline RuleDatabase base_then_shared(RuleStatus base) {
  return database({conv_relu_rule(4, base), fused_chains_rule(RuleStatus::candidate)});
}

}  // namespace superopt::test
