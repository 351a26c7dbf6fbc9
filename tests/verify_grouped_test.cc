// Grouped convolutions over stacked inputs and kernels, and the pooled
// identity kernel: the last 18 rules of TASO's opset at 3 operators that
// neither derivation nor Z3 decided (verify/axioms/README.md). Each is built
// here as in data/rules/taso-3.h5 and must be proved by the shipped axioms;
// the wrong variants beside them must not be.
#include <catch2/catch.hpp>

#include "tests/rule_builder.h"
#include "tests/verify_fixture.h"
#include "verify/prover.h"
#include "verify/rule_verifier.h"

using namespace superopt;
using namespace superopt::verify;
using superopt::test::axis;
using superopt::test::merge;
using superopt::test::op;
using superopt::test::pool;
using superopt::test::RuleBuilder;
using superopt::test::taso_axioms;
using superopt::test::with_shape;

namespace {

OpParams activation(Activation act) {
  OpParams p;
  p.activation = act;
  return p;
}

// Rule 92 (4313 with relu; 746 and 5151 with the 2-group kernel kg 4x2):
// conv(concat1(a, b), concat0(k, k)) in twice k's groups = the two
// convolutions side by side. `kernel_in` 1 is depthwise (8 groups against 4).
Rule stacked_grouped_conv(int64_t kernel_in, Activation act, bool swapped) {
  RuleBuilder b;
  auto [x, xb] = b.input("i1", Shape{2, 4, 5, 5});
  auto [y, yb] = b.input("i2", Shape{2, 4, 5, 5});
  auto [k, kb] = b.input("k", Shape{4, kernel_in, 3, 3}, true);
  const TensorRef first = swapped ? y : x, second = swapped ? x : y;
  b.source.add_output(op(
      b.source, OpType::conv2d,
      {op(b.source, OpType::concat, {first, second}, axis(1)), op(b.source, OpType::concat, {k, k}, axis(0))},
      activation(act)));
  const TensorRef first_b = swapped ? yb : xb, second_b = swapped ? xb : yb;
  b.target.add_output(op(b.target, OpType::concat,
                         {op(b.target, OpType::conv2d, {first_b, kb}, activation(act)),
                          op(b.target, OpType::conv2d, {second_b, kb}, activation(act))},
                         axis(1)));
  return b.rule();
}

// Wrong: two different kernels stacked under twice their groups. Group 1 of
// the 4 reads i1's second channel pair with k2's first rows, not k1's.
Rule stacked_grouped_conv_two_kernels() {
  RuleBuilder b;
  auto [x, xb] = b.input("i1", Shape{2, 4, 5, 5});
  auto [y, yb] = b.input("i2", Shape{2, 4, 5, 5});
  auto [k1, k1b] = b.input("k1", Shape{2, 2, 3, 3}, true);
  auto [k2, k2b] = b.input("k2", Shape{6, 2, 3, 3}, true);
  b.source.add_output(
      op(b.source, OpType::conv2d,
         {op(b.source, OpType::concat, {x, y}, axis(1)), op(b.source, OpType::concat, {k1, k2}, axis(0))}));
  b.target.add_output(op(b.target, OpType::concat,
                         {op(b.target, OpType::conv2d, {xb, k1b}), op(b.target, OpType::conv2d, {yb, k2b})},
                         axis(1)));
  return b.rule();
}

// Rule 2231 (128, 2259, 4514, 6268, 7102 with other kernels and relu): an
// input stacked four times under 4 groups is the ungrouped convolution.
Rule four_copies_conv() {
  RuleBuilder b;
  auto [x, xb] = b.input("i1", Shape{2, 4, 5, 5});
  auto [k, kb] = b.input("k1", Shape{4, 4, 3, 3}, true);
  const TensorRef twice = op(b.source, OpType::concat, {x, x}, axis(1));
  b.source.add_output(
      op(b.source, OpType::conv2d, {op(b.source, OpType::concat, {twice, twice}, axis(1)), k}));
  b.target.add_output(op(b.target, OpType::conv2d, {xb, kb}));
  return b.rule();
}

// Rule 2055 (5038 with relu): the merged depthwise kernels stacked are the
// stacked depthwise kernels, merged.
Rule stacked_merged_kernels() {
  RuleBuilder b;
  auto [x, xb] = b.input("i1", Shape{2, 4, 5, 5});
  auto [dw, dwb] = b.input("dw", Shape{4, 1, 3, 3}, true);
  const TensorRef merged = op(b.source, OpType::merge_groups, {dw}, merge(2, 1));
  b.source.add_output(
      op(b.source, OpType::conv2d, {x, op(b.source, OpType::concat, {merged, merged}, axis(0))}));
  b.target.add_output(op(b.target, OpType::conv2d, {xb, op(b.target, OpType::concat, {dwb, dwb}, axis(0))}));
  return b.rule();
}

// Rule 5140 (6513 with relu): convolving with the pooled identity kernel is
// average pooling.
Rule pooled_identity_kernel(Activation act) {
  RuleBuilder b;
  auto [x, xb] = b.input("i1", Shape{2, 4, 5, 5});
  const TensorRef identity = op(b.source, OpType::i_conv, {}, with_shape(Shape{4, 4, 3, 3}));
  const TensorRef pooled = op(b.source, OpType::pool_avg, {identity}, pool(3, 1, Padding::same));
  b.source.add_output(op(b.source, OpType::conv2d, {x, pooled}, activation(act)));
  TensorRef out = op(b.target, OpType::pool_avg, {xb}, pool(3, 1, Padding::same));
  if (act == Activation::relu) out = op(b.target, OpType::relu, {out});
  b.target.add_output(out);
  return b.rule();
}

}  // namespace

TEST_CASE("grouped convolutions of stacked inputs and kernels are proved", "[verify][grouped]") {
  z3::context ctx;
  RuleProver prover(ctx, taso_axioms(), 10000, 200000);
  for (int64_t kernel_in : {1, 2})
    for (Activation act : {Activation::none, Activation::relu})
      for (bool swapped : {false, true}) {
        INFO("kernel in-channels " << kernel_in << ", relu " << (act == Activation::relu) << ", swapped "
                                   << swapped);
        CHECK(prover.prove(stacked_grouped_conv(kernel_in, act, swapped)).outcome == ProofOutcome::proved);
      }
  CHECK(prover.prove(four_copies_conv()).outcome == ProofOutcome::proved);
  CHECK(prover.prove(stacked_merged_kernels()).outcome == ProofOutcome::proved);
  CHECK(prover.prove(stacked_grouped_conv_two_kernels()).outcome != ProofOutcome::proved);
}

TEST_CASE("convolving with the pooled identity kernel is proved to be average pooling", "[verify][grouped]") {
  z3::context ctx;
  RuleProver prover(ctx, taso_axioms(), 10000, 200000);
  CHECK(prover.prove(pooled_identity_kernel(Activation::none)).outcome == ProofOutcome::proved);
  CHECK(prover.prove(pooled_identity_kernel(Activation::relu)).outcome == ProofOutcome::proved);
}

TEST_CASE("the formerly unknown grouped rules are verified, the wrong variant refuted", "[verify][grouped]") {
  RuleVerifier verifier(taso_axioms(), VerifyLimits{});
  CHECK(verifier.verify(stacked_grouped_conv(1, Activation::none, true)).status == RuleStatus::verified);
  CHECK(verifier.verify(four_copies_conv()).status == RuleStatus::verified);
  CHECK(verifier.verify(pooled_identity_kernel(Activation::relu)).status == RuleStatus::verified);
  CHECK(verifier.verify(stacked_grouped_conv_two_kernels()).status == RuleStatus::refuted);
}
