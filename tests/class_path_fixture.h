// Rules of one fingerprint class for the tests of derivations along a class
// (verify/class_paths.h): three products that A~B and B~C connect,
// and relu fused into a dense or a grouped convolution (derive_test.cc uses it
// too, outside any class).
#pragma once

#include <vector>

#include "runtime/db/rule_database.h"
#include "tests/rule_builder.h"

namespace superopt::test {

inline constexpr uint64_t kClass = 0xc1a55;

// Three members of one class, products of x, y, z, w bracketed three ways:
// A = ((x y) z) w, B = (x (y z)) w, C = x ((y z) w). A~B and B~C are each
// one associativity step over the whole graph, neither derives the other
// (matmul is not commutative), and A~C follows from the two.
enum class Product { a, b, c };

inline TensorRef product(Graph& g, Product p, TensorRef x, TensorRef y, TensorRef z, TensorRef w) {
  auto mm = [&](TensorRef l, TensorRef r) { return op(g, OpType::matmul, {l, r}); };
  switch (p) {
    case Product::a:
      return mm(mm(mm(x, y), z), w);
    case Product::b:
      return mm(mm(x, mm(y, z)), w);
    case Product::c:
      return mm(x, mm(mm(y, z), w));
  }
  return x;
}

inline Rule product_rule(Product from, Product to, RuleStatus status) {
  RuleBuilder r;
  auto [x, xb] = r.input("x", Shape{2, 3});
  auto [y, yb] = r.input("y", Shape{3, 4});
  auto [z, zb] = r.input("z", Shape{4, 5});
  auto [w, wb] = r.input("w", Shape{5, 2});
  r.source.add_output(product(r.source, from, x, y, z, w));
  r.target.add_output(product(r.target, to, xb, yb, zb, wb));
  Rule rule = r.rule();
  rule.fingerprint = kClass;
  rule.status = status;
  return rule;
}

// relu(conv(x, w)) = conv[relu](x, w), at the group count the kernel gives.
inline Rule conv_relu_rule(int64_t kernel_in_channels, RuleStatus status, uint64_t fingerprint = 0) {
  RuleBuilder r;
  auto [x, xb] = r.input("x", Shape{1, 4, 5, 5});
  auto [w, wb] = r.input("w", Shape{4, kernel_in_channels, 3, 3}, true);
  OpParams fused;
  fused.activation = Activation::relu;
  r.source.add_output(op(r.source, OpType::relu, {op(r.source, OpType::conv2d, {x, w})}));
  r.target.add_output(op(r.target, OpType::conv2d, {xb, wb}, fused));
  Rule rule = r.rule();
  rule.fingerprint = fingerprint;
  rule.status = status;
  return rule;
}

inline RuleDatabase database(std::vector<Rule> rules) {
  RuleDatabase db;
  db.rules = std::move(rules);
  return db;
}

// A~B and B~C proven, A~C not yet.
inline RuleDatabase three_members(RuleStatus last) {
  return database({product_rule(Product::a, Product::b, RuleStatus::verified),
                   product_rule(Product::b, Product::c, RuleStatus::verified),
                   product_rule(Product::a, Product::c, last)});
}

}  // namespace superopt::test
