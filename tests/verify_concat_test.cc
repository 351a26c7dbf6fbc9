// Concat and split in the Z3 encoding carry their part sizes (issue 32): the
// prover must not assume that two concats' parts line up. Rule 1685 of
// data/rules/taso-3.h5 swaps the parts of both concats under a convolution,
// which is true only where each input part has its kernel part's channels;
// the axioms once proved it at any sizes. Each case here is built at sizes
// where the parts line up (proved) and where they do not (not proved).
#include <catch2/catch.hpp>

#include "tests/rule_builder.h"
#include "tests/verify_fixture.h"
#include "verify/prover.h"
#include "verify/tensor_theory.h"

using namespace superopt;
using namespace superopt::verify;
using superopt::test::axis;
using superopt::test::op;
using superopt::test::RuleBuilder;
using superopt::test::taso_axioms;

namespace {

OpParams relu_conv() {
  OpParams p;
  p.activation = Activation::relu;
  return p;
}

bool proved(const Rule& r) {
  z3::context ctx;
  RuleProver prover(ctx, taso_axioms(), 10000, 200000);
  return prover.prove(r).outcome == ProofOutcome::proved;
}

// Rule 1685: conv(concat1(i2, i1), concat1(k2, k1), relu) = conv(concat1(i1, i2), concat1(k1, k2), relu),
// with i2 6 channels and i1 4, and kernels of k2_in and 10 - k2_in input channels.
Rule swapped_parts(int64_t k2_in) {
  RuleBuilder b;
  auto [i2, i2b] = b.input("i2", Shape{5, 6, 7, 2});
  auto [i1, i1b] = b.input("i1", Shape{5, 4, 7, 2});
  auto [k2, k2b] = b.input("k2", Shape{8, k2_in, 3, 3}, true);
  auto [k1, k1b] = b.input("k1", Shape{8, 10 - k2_in, 3, 3}, true);
  b.source.add_output(
      op(b.source, OpType::conv2d,
         {op(b.source, OpType::concat, {i2, i1}, axis(1)), op(b.source, OpType::concat, {k2, k1}, axis(1))},
         relu_conv()));
  b.target.add_output(op(
      b.target, OpType::conv2d,
      {op(b.target, OpType::concat, {i1b, i2b}, axis(1)), op(b.target, OpType::concat, {k1b, k2b}, axis(1))},
      relu_conv()));
  return b.rule();
}

// The same over three parts: conv(concat1(concat1(a, b), c), concat1(concat1(ka, kb), kc)) with a and b
// swapped on both sides; a has 2 channels, b 3, c 1; ka has ka_in input channels, kb 5 - ka_in.
Rule three_parts_swapped(int64_t ka_in) {
  RuleBuilder b;
  auto [a, ab] = b.input("a", Shape{2, 2, 5, 5});
  auto [x, xb] = b.input("b", Shape{2, 3, 5, 5});
  auto [c, cb] = b.input("c", Shape{2, 1, 5, 5});
  auto [ka, kab] = b.input("ka", Shape{4, ka_in, 3, 3}, true);
  auto [kb, kbb] = b.input("kb", Shape{4, 5 - ka_in, 3, 3}, true);
  auto [kc, kcb] = b.input("kc", Shape{4, 1, 3, 3}, true);
  auto side = [](Graph& g, TensorRef first, TensorRef second, TensorRef third, TensorRef k_first,
                 TensorRef k_second, TensorRef k_third) {
    TensorRef in = op(g, OpType::concat, {op(g, OpType::concat, {first, second}, axis(1)), third}, axis(1));
    TensorRef k =
        op(g, OpType::concat, {op(g, OpType::concat, {k_first, k_second}, axis(1)), k_third}, axis(1));
    g.add_output(op(g, OpType::conv2d, {in, k}));
  };
  side(b.source, a, x, c, ka, kb, kc);
  side(b.target, xb, ab, cb, kbb, kab, kcb);
  return b.rule();
}

// conv over three parts whose kernel is grouped the other way: the parts line up only after
// reassociating concat1(ka, concat1(kb, kc)) (concat_assoc_right) = the sum of the three convolutions.
Rule three_parts_reassociated(int64_t ka_in) {
  RuleBuilder b;
  auto [a, ab] = b.input("a", Shape{2, 2, 5, 5});
  auto [x, xb] = b.input("b", Shape{2, 3, 5, 5});
  auto [c, cb] = b.input("c", Shape{2, 1, 5, 5});
  auto [ka, kab] = b.input("ka", Shape{4, ka_in, 3, 3}, true);
  auto [kb, kbb] = b.input("kb", Shape{4, 5 - ka_in, 3, 3}, true);
  auto [kc, kcb] = b.input("kc", Shape{4, 1, 3, 3}, true);
  Graph& s = b.source;
  TensorRef in = op(s, OpType::concat, {op(s, OpType::concat, {a, x}, axis(1)), c}, axis(1));
  TensorRef k = op(s, OpType::concat, {ka, op(s, OpType::concat, {kb, kc}, axis(1))}, axis(1));
  s.add_output(op(s, OpType::conv2d, {in, k}));
  Graph& t = b.target;
  // Only well formed where a has ka's channels: the caller asks for that case.
  t.add_output(
      op(t, OpType::ewadd,
         {op(t, OpType::conv2d, {ab, kab}),
          op(t, OpType::ewadd, {op(t, OpType::conv2d, {xb, kbb}), op(t, OpType::conv2d, {cb, kcb})})}));
  return b.rule();
}

// Wrong at any sizes where i2 and i1 differ in batch: the inputs are stacked along the batch axis,
// the kernels along the channels, so conv_concat_channels (both along the channels) says nothing.
Rule batch_stacked_inputs_swapped() {
  RuleBuilder b;
  auto [i2, i2b] = b.input("i2", Shape{3, 10, 5, 5});
  auto [i1, i1b] = b.input("i1", Shape{2, 10, 5, 5});
  auto [k2, k2b] = b.input("k2", Shape{4, 6, 3, 3}, true);
  auto [k1, k1b] = b.input("k1", Shape{4, 4, 3, 3}, true);
  b.source.add_output(
      op(b.source, OpType::conv2d,
         {op(b.source, OpType::concat, {i2, i1}, axis(0)), op(b.source, OpType::concat, {k2, k1}, axis(1))}));
  b.target.add_output(op(b.target, OpType::conv2d,
                         {op(b.target, OpType::concat, {i1b, i2b}, axis(0)),
                          op(b.target, OpType::concat, {k1b, k2b}, axis(1))}));
  return b.rule();
}

// conv(concat0(x1, x2), k) = concat0(conv(x1, k), conv(x2, k)) (concat_conv_batch), with the
// output parts in the right order or, wrong, swapped.
Rule batch_concat_conv(bool swapped) {
  RuleBuilder b;
  auto [x1, x1b] = b.input("x1", Shape{2, 4, 5, 5});
  auto [x2, x2b] = b.input("x2", Shape{3, 4, 5, 5});
  auto [k, kb] = b.input("k", Shape{4, 4, 3, 3}, true);
  b.source.add_output(op(b.source, OpType::conv2d, {op(b.source, OpType::concat, {x1, x2}, axis(0)), k}));
  TensorRef c1 = op(b.target, OpType::conv2d, {x1b, kb}), c2 = op(b.target, OpType::conv2d, {x2b, kb});
  b.target.add_output(op(b.target, OpType::concat, {swapped ? c2 : c1, swapped ? c1 : c2}, axis(0)));
  return b.rule();
}

}  // namespace

TEST_CASE("rule 1685 is proved only where the concats' parts line up", "[verify][concat]") {
  CHECK(proved(swapped_parts(6)));   // i2 6 channels, k2 6: true
  CHECK(!proved(swapped_parts(4)));  // i2 6 channels, k2 4: false, both concats 10 channels
}

TEST_CASE("three-way concats: parts must line up at every cut", "[verify][concat]") {
  CHECK(proved(three_parts_swapped(2)));
  // The outer cuts line up (5 and 5), the inner ones do not (2 against 3).
  CHECK(!proved(three_parts_swapped(3)));
  CHECK(proved(three_parts_reassociated(2)));
}

TEST_CASE("a concat along another axis than the convolution's channels does not split it",
          "[verify][concat]") {
  CHECK(!proved(batch_stacked_inputs_swapped()));
  CHECK(proved(batch_concat_conv(false)));
  CHECK(!proved(batch_concat_conv(true)));
}

TEST_CASE("the encoding names a concat's and a split's part sizes", "[verify][concat]") {
  z3::context ctx;
  TensorTheory theory(ctx);
  Graph g;
  const TensorRef a{g.add_input("a", Shape{2, 2}), 0}, b{g.add_input("b", Shape{2, 3}), 0},
      c{g.add_input("c", Shape{2, 4}), 0};
  const NodeId two = g.add(OpType::concat, {a, b}, axis(1));
  g.add_output({two, 0});
  g.add_output(op(g, OpType::concat, {a, b, c}, axis(1)));
  const NodeId split = g.add(OpType::split, {TensorRef{two, 0}}, axis(1));
  g.add_output({split, 1});
  const std::vector<z3::expr> out = theory.graph_outputs(g);
  REQUIRE(out.size() == 3);
  // The axis, then the size of every input but the last.
  CHECK(out[0].to_string() == "(concat 1 2 |t:a| |t:b|)");
  CHECK(out[1].to_string() == "(|concat#3| 1 2 3 |t:a| |t:b| |t:c|)");
  // The axis, then the size of output 0.
  CHECK(out[2].to_string() == "(split.1 1 2 (concat 1 2 |t:a| |t:b|))");
}
