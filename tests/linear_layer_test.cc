// A linear layer, linear(x, W, b) = act(x W + b) (issue 36: PyTorch's Linear and
// its activation, taken together on import): its shape rule, its reference
// kernel (against matmul, a broadcast bias add and the activation) and the
// axioms that prove rules over it (verify/axioms/taso.ax), with wrong rules
// refuted.
#include <catch2/catch.hpp>

#include "runtime/core/arith.h"
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

OpParams with(Activation a) {
  OpParams p;
  p.activation = a;
  return p;
}

RuleStatus verdict(const Rule& r) {
  static RuleVerifier verifier(taso_axioms(), VerifyLimits{});
  return verifier.verify(r).status;
}

// act(linear(x, w, b)) = linear[fused](x, w, b) on x of the given shape: true when
// fused is act's activation.
Rule activation_into_linear(OpType act, Activation fused, const Shape& x_shape) {
  RuleBuilder b;
  auto [x, x2] = b.input("x", x_shape);
  auto [w, w2] = b.input("w", Shape{4, 4}, true);
  auto [c, c2] = b.input("b", Shape{4}, true);
  b.source.add_output(op(b.source, act, {op(b.source, OpType::linear, {x, w, c})}));
  b.target.add_output(op(b.target, OpType::linear, {x2, w2, c2}, with(fused)));
  return b.rule();
}

// Two linear layers of one input, side by side on the last axis: one layer with
// the weights and the biases stacked. swap_biases: each bias on the other's
// columns (wrong).
Rule merged_linears(bool swap_biases, Activation act, const Shape& x_shape) {
  RuleBuilder b;
  auto [x, x2] = b.input("x", x_shape);
  auto [w1, w1b] = b.input("w1", Shape{4, 4}, true);
  auto [w2, w2b] = b.input("w2", Shape{4, 4}, true);
  auto [b1, b1b] = b.input("b1", Shape{4}, true);
  auto [b2, b2b] = b.input("b2", Shape{4}, true);
  const int last = x_shape.rank() - 1;
  b.source.add_output(op(b.source, OpType::concat,
                         {op(b.source, OpType::linear, {x, w1, b1}, with(act)),
                          op(b.source, OpType::linear, {x, w2, b2}, with(act))},
                         axis(last)));
  TensorRef biases = swap_biases ? op(b.target, OpType::concat, {b2b, b1b}, axis(0))
                                 : op(b.target, OpType::concat, {b1b, b2b}, axis(0));
  b.target.add_output(op(b.target, OpType::linear,
                         {x2, op(b.target, OpType::concat, {w1b, w2b}, axis(1)), biases}, with(act)));
  return b.rule();
}

}  // namespace

TEST_CASE("a linear layer's weight is a matrix and its bias one value per column", "[linear]") {
  TensorDesc x{Shape{2, 5, 6}}, w{Shape{6, 4}}, good{Shape{4}}, wrong{Shape{1, 4}}, short_bias{Shape{3}};
  TensorDesc batched{Shape{2, 6, 4}};
  TensorDesc out[1];
  const TensorDesc* fits[] = {&x, &w, &good};
  infer_outputs(OpType::linear, OpParams{}, fits, out);
  CHECK(out[0].shape == Shape{2, 5, 4});
  const TensorDesc* rank2_bias[] = {&x, &w, &wrong};
  CHECK_THROWS_WITH(infer_outputs(OpType::linear, OpParams{}, rank2_bias, out),
                    Catch::Contains("input 2 must have rank 1"));
  const TensorDesc* misfit[] = {&x, &w, &short_bias};
  CHECK_THROWS_WITH(infer_outputs(OpType::linear, OpParams{}, misfit, out),
                    Catch::Contains("bias 3 is not one value per output column (4)"));
  const TensorDesc* batched_weight[] = {&x, &batched, &good};
  CHECK_THROWS_WITH(infer_outputs(OpType::linear, OpParams{}, batched_weight, out),
                    Catch::Contains("input 1 must have rank 2"));
}

TEST_CASE("the reference linear layer adds its bias to each row before the activation", "[linear]") {
  // linear[act](x, w, b) against act(matmul(x, w) + b), in double, for every activation.
  for (Activation a : {Activation::none, Activation::relu, Activation::sigmoid, Activation::silu,
                       Activation::hardswish, Activation::gelu, Activation::relu6}) {
    INFO(activation_name(a));
    Graph g;
    NodeId x = g.add_input("x", {2, 5, 6});
    NodeId w = g.add_weight("w", {6, 4});
    NodeId b = g.add_weight("b", {4});
    g.add_output({g.add(OpType::linear, {{x, 0}, {w, 0}, {b, 0}}, with(a)), 0});
    TensorRef sums = {g.add(OpType::ewadd, {{g.add(OpType::matmul, {{x, 0}, {w, 0}}), 0}, {b, 0}}), 0};
    if (std::optional<OpType> act = activation_op(a)) sums = {g.add(*act, {sums}), 0};
    g.add_output(sums);
    const RealArith<double> real;
    const std::vector<Tensor<double>> out = evaluate(g, real, random_sources(real, 11));
    REQUIRE(out[0].shape == Shape{2, 5, 4});
    REQUIRE(out[0].shape == out[1].shape);
    for (size_t i = 0; i < out[0].data.size(); ++i)
      CHECK(out[0].data[i] == Approx(out[1].data[i]).margin(1e-12));
  }
}

TEST_CASE("rules over linear layers are proven from their axioms at ranks 2, 3 and 4", "[linear][verify]") {
  for (const Shape& x : {Shape{2, 4}, Shape{2, 3, 4}, Shape{2, 2, 3, 4}}) {
    INFO("x " << x.str());
    for (Activation a : {Activation::relu, Activation::sigmoid, Activation::silu, Activation::hardswish,
                         Activation::gelu, Activation::relu6}) {
      INFO(activation_name(a));
      CHECK(verdict(activation_into_linear(*activation_op(a), a, x)) == RuleStatus::verified);
    }
    CHECK(verdict(merged_linears(false, Activation::gelu, x)) == RuleStatus::verified);
  }
}

TEST_CASE("wrong rules over linear layers are refuted", "[linear][verify]") {
  RuleVerifier verifier(taso_axioms(), VerifyLimits{});
  for (const Rule& r : {merged_linears(true, Activation::none, Shape{2, 3, 4}),
                        activation_into_linear(OpType::gelu, Activation::silu, Shape{2, 3, 4}),
                        activation_into_linear(OpType::sigmoid, Activation::hardswish, Shape{2, 4}),
                        // relu and relu6 agree below 6: the widest concrete draw tells them apart
                        activation_into_linear(OpType::relu, Activation::relu6, Shape{2, 4})}) {
    const RuleVerdict v = verifier.verify(r);
    CHECK(v.status == RuleStatus::refuted);
    CHECK(v.note.find("differs at") != std::string::npos);
  }
}
