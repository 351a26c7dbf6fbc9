// A convolution with its bias (conv2d's optional third input, ONNX's Conv B):
// its shape rule, its reference kernel (the bias added before the activation)
// and the axioms that prove rules over it (verify/axioms/taso.ax), with wrong
// rules refuted.
#include <catch2/catch.hpp>

#include "runtime/core/arith.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "tests/rule_builder.h"
#include "tests/verify_fixture.h"
#include "verify/rule_verifier.h"

using namespace superopt;
using namespace superopt::verify;
using superopt::test::axis;
using superopt::test::op;
using superopt::test::RuleBuilder;
using superopt::test::taso_axioms;

namespace {

RuleStatus verdict(const Rule& r) {
  static RuleVerifier verifier(taso_axioms(), VerifyLimits{});
  return verifier.verify(r).status;
}

// act(conv2d(x, w, b)) = conv2d[fused](x, w, b): true when fused is act's activation.
Rule activation_into_biased_conv(OpType act, Activation fused) {
  RuleBuilder b;
  auto [x, x2] = b.input("x", Shape{2, 4, 5, 5});
  auto [w, w2] = b.input("w", Shape{4, 4, 3, 3}, true);
  auto [c, c2] = b.input("b", Shape{4}, true);
  b.source.add_output(
      op(b.source, act, {op(b.source, OpType::conv2d, {x, w, c}, test::conv(1, Padding::same))}));
  b.target.add_output(op(b.target, OpType::conv2d, {x2, w2, c2}, test::conv(1, Padding::same, fused)));
  return b.rule();
}

// relu(conv2d(x, w, b)) = conv2d[relu](x, w, b)
Rule relu_into_biased_conv() {
  RuleBuilder b;
  auto [x, x2] = b.input("x", Shape{2, 4, 5, 5});
  auto [w, w2] = b.input("w", Shape{4, 4, 3, 3}, true);
  auto [c, c2] = b.input("b", Shape{4}, true);
  b.source.add_output(
      op(b.source, OpType::relu, {op(b.source, OpType::conv2d, {x, w, c}, test::conv(1, Padding::same))}));
  b.target.add_output(
      op(b.target, OpType::conv2d, {x2, w2, c2}, test::conv(1, Padding::same, Activation::relu)));
  return b.rule();
}

// Two biased convolutions of one input, side by side: one convolution with the
// kernels and the biases concatenated. swap_biases: each bias on the other's
// channels (wrong).
Rule merged_biased_convs(bool swap_biases, Activation act = Activation::relu) {
  RuleBuilder b;
  auto [x, x2] = b.input("x", Shape{1, 4, 5, 5});
  auto [w1, w1b] = b.input("w1", Shape{4, 4, 3, 3}, true);
  auto [w2, w2b] = b.input("w2", Shape{4, 4, 3, 3}, true);
  auto [b1, b1b] = b.input("b1", Shape{4}, true);
  auto [b2, b2b] = b.input("b2", Shape{4}, true);
  const OpParams conv = test::conv(1, Padding::same, act);
  b.source.add_output(
      op(b.source, OpType::concat,
         {op(b.source, OpType::conv2d, {x, w1, b1}, conv), op(b.source, OpType::conv2d, {x, w2, b2}, conv)},
         axis(1)));
  TensorRef biases = swap_biases ? op(b.target, OpType::concat, {b2b, b1b}, axis(0))
                                 : op(b.target, OpType::concat, {b1b, b2b}, axis(0));
  b.target.add_output(
      op(b.target, OpType::conv2d, {x2, op(b.target, OpType::concat, {w1b, w2b}, axis(0)), biases}, conv));
  return b.rule();
}

// Wrong: enlarging a 1x1 kernel to 3x3 keeps a SAME convolution at stride 1 only
// (conv_bias_enlarge); at stride 2 TensorFlow's SAME pads after the input, so
// the centred kernel reads other positions.
Rule enlarge_at_stride(int stride) {
  RuleBuilder b;
  auto [x, x2] = b.input("x", Shape{1, 4, 6, 6});
  auto [w, w2] = b.input("w", Shape{4, 4, 1, 1}, true);
  auto [c, c2] = b.input("b", Shape{4}, true);
  OpParams big;
  big.kernel_h = big.kernel_w = 3;
  b.source.add_output(op(b.source, OpType::conv2d, {x, w, c}, test::conv(stride, Padding::same)));
  b.target.add_output(op(b.target, OpType::conv2d, {x2, op(b.target, OpType::enlarge, {w2}, big), c2},
                         test::conv(stride, Padding::same)));
  return b.rule();
}

}  // namespace

TEST_CASE("a convolution's bias is one value per output channel", "[conv_bias]") {
  TensorDesc x{Shape{1, 4, 5, 5}}, w{Shape{8, 4, 3, 3}}, good{Shape{8}}, wrong{Shape{8, 1, 1}};
  TensorDesc out[1];
  const TensorDesc* biased[] = {&x, &w, &good};
  infer_outputs(OpType::conv2d, test::conv(1, Padding::same), biased, out);
  CHECK(out[0].shape == Shape{1, 8, 5, 5});
  const TensorDesc* misfit[] = {&x, &w, &wrong};
  CHECK_THROWS_WITH(infer_outputs(OpType::conv2d, test::conv(1, Padding::same), misfit, out),
                    Catch::Contains("bias 8x1x1 is not one value per output channel (8)"));
}

TEST_CASE("the reference convolution adds its bias before the activation", "[conv_bias]") {
  // conv2d[relu](x, w, b) against relu(conv2d(x, w) + reshape(b, [C,1,1])), in double.
  Graph g;
  NodeId x = g.add_input("x", {1, 3, 6, 6});
  NodeId w = g.add_weight("w", {5, 3, 3, 3});
  NodeId b = g.add_weight("b", {5});
  OpParams col;
  col.shape = Shape{5, 1, 1};
  g.add_output(
      {g.add(OpType::conv2d, {{x, 0}, {w, 0}, {b, 0}}, test::conv(2, Padding::same, Activation::relu)), 0});
  NodeId plain = g.add(OpType::conv2d, {{x, 0}, {w, 0}}, test::conv(2, Padding::same));
  NodeId added = g.add(OpType::ewadd, {{plain, 0}, {g.add(OpType::reshape, {{b, 0}}, col), 0}});
  g.add_output({g.add(OpType::relu, {{added, 0}}), 0});
  const RealArith<double> real;
  const std::vector<Tensor<double>> out = evaluate(g, real, random_sources(real, 7));
  REQUIRE(out[0].shape == out[1].shape);
  int positive = 0;
  for (size_t i = 0; i < out[0].data.size(); ++i) {
    CHECK(out[0].data[i] == Approx(out[1].data[i]).margin(1e-12));
    positive += out[0].data[i] > 0;
  }
  CHECK(positive > 0);  // the relu did not zero everything
}

TEST_CASE("rules over biased convolutions are proven from their axioms", "[conv_bias][verify]") {
  CHECK(verdict(relu_into_biased_conv()) == RuleStatus::verified);
  CHECK(verdict(merged_biased_convs(false)) == RuleStatus::verified);
  CHECK(verdict(enlarge_at_stride(1)) == RuleStatus::verified);
}

TEST_CASE("wrong rules over biased convolutions are refuted", "[conv_bias][verify]") {
  RuleVerifier verifier(taso_axioms(), VerifyLimits{});
  for (const Rule& r : {merged_biased_convs(true), enlarge_at_stride(2)}) {
    const RuleVerdict v = verifier.verify(r);
    CHECK(v.status == RuleStatus::refuted);
    CHECK(v.note.find("differs at") != std::string::npos);
  }
}

TEST_CASE("a convolution fuses sigmoid, silu, hardswish, gelu and relu6 as it fuses relu",
          "[conv_bias][verify]") {
  for (Activation a :
       {Activation::sigmoid, Activation::silu, Activation::hardswish, Activation::gelu, Activation::relu6}) {
    INFO(activation_name(a));
    CHECK(verdict(activation_into_biased_conv(*activation_op(a), a)) == RuleStatus::verified);
    CHECK(verdict(merged_biased_convs(false, a)) == RuleStatus::verified);
  }
  // Fusing one activation as another is wrong, and the verifier shows where.
  RuleVerifier verifier(taso_axioms(), VerifyLimits{});
  const RuleVerdict wrong = verifier.verify(activation_into_biased_conv(OpType::silu, Activation::sigmoid));
  CHECK(wrong.status == RuleStatus::refuted);
  CHECK(verdict(activation_into_biased_conv(OpType::hardswish, Activation::silu)) == RuleStatus::refuted);
}

TEST_CASE("the reference convolution applies silu as x * sigmoid(x) after its bias", "[conv_bias]") {
  Graph g;
  NodeId x = g.add_input("x", {1, 3, 6, 6});
  NodeId w = g.add_weight("w", {5, 3, 3, 3});
  NodeId b = g.add_weight("b", {5});
  g.add_output(
      {g.add(OpType::conv2d, {{x, 0}, {w, 0}, {b, 0}}, test::conv(1, Padding::valid, Activation::silu)), 0});
  NodeId plain = g.add(OpType::conv2d, {{x, 0}, {w, 0}, {b, 0}}, test::conv(1, Padding::valid));
  g.add_output({g.add(OpType::ewmul, {{plain, 0}, {g.add(OpType::sigmoid, {{plain, 0}}), 0}}), 0});
  const RealArith<double> real;
  const std::vector<Tensor<double>> out = evaluate(g, real, random_sources(real, 11));
  REQUIRE(out[0].shape == out[1].shape);
  for (size_t i = 0; i < out[0].data.size(); ++i)
    CHECK(out[0].data[i] == Approx(out[1].data[i]).margin(1e-12));
}
