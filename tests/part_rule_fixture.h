// Rules for the tests of derivations part by part (verify/rule_parts.h): a
// rule whose two outputs are computed apart, relu fused into a convolution
// beside a product of four matrices rebracketed twice, so that it takes three
// steps, more than the breadth-first search's two, and its parts one and two.
#pragma once

#include "tests/class_path_fixture.h"

namespace superopt::test {

// relu(conv(x, w)) and ((p q) r) s  ->  conv[relu](x, w) and p ((q r) s),
// the convolution dense or grouped as the kernel gives.
inline Rule two_part_rule(int64_t kernel_in_channels, RuleStatus status) {
  RuleBuilder r;
  // Inputs before weights, as a database file lists them, so that the node
  // ids a derivation stores are those the file gives back.
  auto [x, xb] = r.input("x", Shape{1, 4, 5, 5});
  auto [p, pb] = r.input("p", Shape{2, 3});
  auto [q, qb] = r.input("q", Shape{3, 4});
  auto [s, sb] = r.input("s", Shape{4, 5});
  auto [t, tb] = r.input("t", Shape{5, 2});
  auto [w, wb] = r.input("w", Shape{4, kernel_in_channels, 3, 3}, true);
  OpParams fused;
  fused.activation = Activation::relu;
  r.source.add_output(op(r.source, OpType::relu, {op(r.source, OpType::conv2d, {x, w})}));
  r.source.add_output(product(r.source, Product::a, p, q, s, t));
  r.target.add_output(op(r.target, OpType::conv2d, {xb, wb}, fused));
  r.target.add_output(product(r.target, Product::c, pb, qb, sb, tb));
  Rule rule = r.rule();
  rule.status = status;
  return rule;
}

// The parts' rules (conv-relu at the given kernel, A~B, B~C) proven, then the
// dense two-part rule and the grouped one.
inline RuleDatabase parts_then_products(RuleStatus bases, int64_t base_kernel_in_channels = 4) {
  return database({conv_relu_rule(base_kernel_in_channels, bases),
                   product_rule(Product::a, Product::b, bases), product_rule(Product::b, Product::c, bases),
                   two_part_rule(4, RuleStatus::candidate), two_part_rule(2, RuleStatus::candidate)});
}

}  // namespace superopt::test
