// The verifier's soundness suite: deliberately wrong rules of every kind we know
// the verifier or the matcher once let through (transposes without their rank,
// rules that fit no prepared sizes, sizes equal only by chance, instances the
// matcher admitted outside the rule's family) are never verified nor applied;
// true rules at unusual shapes are verified.
#include <catch2/catch.hpp>

#include "runtime/core/arith.h"
#include "runtime/core/evaluator.h"
#include "runtime/rewrite/rewrite.h"
#include "tests/application_check.h"
#include "tests/rule_builder.h"
#include "tests/verify_fixture.h"
#include "verify/axiom_set.h"
#include "verify/prover.h"
#include "verify/rule_validation.h"
#include "verify/rule_verifier.h"

using namespace superopt;
using namespace superopt::verify;
using superopt::test::applications_checked;
using superopt::test::axis;
using superopt::test::op;
using superopt::test::RuleBuilder;
using superopt::test::taso_axioms;

namespace {

RuleVerdict verdict(const Rule& r) {
  static RuleVerifier verifier(taso_axioms(), VerifyLimits{});
  return verifier.verify(r);
}

OpParams conv_params() {
  return test::conv(1, Padding::same);
}

OpParams pool_params(int k, Padding pad) {
  return test::pool(k, 1, pad);
}

// transpose(a b) = transpose(b) transpose(a), with every transpose reversing
// all dimensions: true for matrices, false for batched rank-3 operands.
Rule transpose_matmul(Shape a, Shape b) {
  RuleBuilder r;
  auto [x, xb] = r.input("a", a);
  auto [y, yb] = r.input("b", b);
  r.source.add_output(op(r.source, OpType::transpose, {op(r.source, OpType::matmul, {x, y})}));
  r.target.add_output(op(r.target, OpType::matmul,
                         {op(r.target, OpType::transpose, {yb}), op(r.target, OpType::transpose, {xb})}));
  return r.rule();
}

// concat[1](transpose x, transpose y) = transpose(concat[0](x, y)): true for
// matrices; at rank 3 the reversed concatenation axis is 2, not 1.
Rule concat_transpose(Shape s) {
  RuleBuilder r;
  auto [x, xb] = r.input("x", s);
  auto [y, yb] = r.input("y", s);
  r.source.add_output(op(r.source, OpType::concat,
                         {op(r.source, OpType::transpose, {x}), op(r.source, OpType::transpose, {y})},
                         axis(1)));
  r.target.add_output(op(r.target, OpType::transpose, {op(r.target, OpType::concat, {xb, yb}, axis(0))}));
  return r.rule();
}

// A 2-group convolution of concatenated inputs with concatenated kernels is two
// convolutions only when the kernels have equal output channels (the groups
// split the output channels evenly), which the rule's own sizes happen to have.
Rule grouped_conv_of_concats() {
  RuleBuilder r;
  auto [i1, i1b] = r.input("i1", Shape{2, 4, 5, 5});
  auto [i2, i2b] = r.input("i2", Shape{2, 4, 5, 5});
  auto [k1, k1b] = r.input("k1", Shape{4, 4, 3, 3}, true);
  auto [k2, k2b] = r.input("k2", Shape{4, 4, 3, 3}, true);
  r.source.add_output(
      op(r.source, OpType::conv2d,
         {op(r.source, OpType::concat, {i1, i2}, axis(1)), op(r.source, OpType::concat, {k1, k2}, axis(0))},
         conv_params()));
  r.target.add_output(op(r.target, OpType::concat,
                         {op(r.target, OpType::conv2d, {i1b, k1b}, conv_params()),
                          op(r.target, OpType::conv2d, {i2b, k2b}, conv_params())},
                         axis(1)));
  return r.rule();
}

// conv(x, kg) with `groups` groups = conv(x, merge_groups[stated, into](kg)),
// true when the stated group count is the kernel's.
Rule merge_groups_rule(int64_t channels, int32_t groups, int32_t into, int32_t stated = 0) {
  RuleBuilder r;
  auto [x, xb] = r.input("x", Shape{1, channels, 5, 5});
  auto [w, wb] = r.input("kg", Shape{channels, channels / groups, 3, 3}, true);
  OpParams merge;
  merge.groups = stated ? stated : groups;
  merge.into = into;
  r.source.add_output(op(r.source, OpType::conv2d, {x, w}, conv_params()));
  r.target.add_output(
      op(r.target, OpType::conv2d, {xb, op(r.target, OpType::merge_groups, {wb}, merge)}, conv_params()));
  return r.rule();
}

// Wrong rules of many kinds, each at shapes where it is false.
std::vector<std::pair<const char*, Rule>> wrong_rules() {
  std::vector<std::pair<const char*, Rule>> all;
  {  // matmul's operands swapped
    RuleBuilder r;
    auto [x, xb] = r.input("x", Shape{3, 3});
    auto [y, yb] = r.input("y", Shape{3, 3});
    r.source.add_output(op(r.source, OpType::matmul, {x, y}));
    r.target.add_output(op(r.target, OpType::matmul, {yb, xb}));
    all.emplace_back("operand order", r.rule());
  }
  {  // relu through a scale that may be negative
    RuleBuilder r;
    auto [x, xb] = r.input("x", Shape{2, 4});
    auto [s, sb] = r.input("s", Shape{}, true);
    r.source.add_output(op(r.source, OpType::relu, {op(r.source, OpType::smul, {x, s})}));
    r.target.add_output(op(r.target, OpType::smul, {op(r.target, OpType::relu, {xb}), sb}));
    all.emplace_back("activation through a negative scale", r.rule());
  }
  {  // max-pooling of a sum is not the sum of max-poolings
    RuleBuilder r;
    auto [x, xb] = r.input("x", Shape{1, 2, 5, 5});
    auto [y, yb] = r.input("y", Shape{1, 2, 5, 5});
    OpParams p = pool_params(3, Padding::same);
    r.source.add_output(op(r.source, OpType::pool_max, {op(r.source, OpType::ewadd, {x, y})}, p));
    r.target.add_output(
        op(r.target, OpType::ewadd,
           {op(r.target, OpType::pool_max, {xb}, p), op(r.target, OpType::pool_max, {yb}, p)}));
    all.emplace_back("max-pooling of a sum", r.rule());
  }
  {  // concat's halves swapped
    RuleBuilder r;
    auto [x, xb] = r.input("x", Shape{2, 2});
    auto [y, yb] = r.input("y", Shape{2, 2});
    r.source.add_output(op(r.source, OpType::concat, {x, y}, axis(1)));
    r.target.add_output(op(r.target, OpType::concat, {yb, xb}, axis(1)));
    all.emplace_back("swapped concat halves", r.rule());
  }
  {  // the left half of a 2x2 block matrix read as its top row
    RuleBuilder r;
    auto [x, xb] = r.input("x", Shape{2, 2});
    auto [y, yb] = r.input("y", Shape{2, 2});
    auto [z, zb] = r.input("z", Shape{2, 2});
    auto [w, wb] = r.input("w", Shape{2, 2});
    TensorRef blocks =
        op(r.source, OpType::concat,
           {op(r.source, OpType::concat, {x, y}, axis(1)), op(r.source, OpType::concat, {z, w}, axis(1))},
           axis(0));
    NodeId s = r.source.add(OpType::split, {blocks}, axis(0));
    r.source.add_output({s, 0});
    r.target.add_output(op(r.target, OpType::concat, {xb, zb}, axis(1)));
    (void)yb, (void)wb;
    all.emplace_back("wrong split axis", r.rule());
  }
  {  // a SAME convolution across a seam: rows near it see the other half
    RuleBuilder r;
    auto [x, xb] = r.input("x", Shape{1, 2, 3, 5});
    auto [y, yb] = r.input("y", Shape{1, 2, 3, 5});
    auto [k, kb] = r.input("k", Shape{2, 2, 3, 3}, true);
    r.source.add_output(
        op(r.source, OpType::conv2d, {op(r.source, OpType::concat, {x, y}, axis(2)), k}, conv_params()));
    r.target.add_output(op(r.target, OpType::concat,
                           {op(r.target, OpType::conv2d, {xb, kb}, conv_params()),
                            op(r.target, OpType::conv2d, {yb, kb}, conv_params())},
                           axis(2)));
    all.emplace_back("padding seam", r.rule());
  }
  all.emplace_back("wrong group count", merge_groups_rule(4, 2, 2, 4));
  all.emplace_back("rank-3 transpose of a product", transpose_matmul(Shape{2, 2, 2}, Shape{2, 2, 2}));
  all.emplace_back("rank-3 transpose of a concatenation", concat_transpose(Shape{2, 2, 2}));
  all.emplace_back("sizes equal by chance", grouped_conv_of_concats());
  {  // degenerate: a 1x1 matrix is its own transpose, a square one is not
    RuleBuilder r;
    auto [x, xb] = r.input("x", Shape{1, 1});
    r.source.add_output(op(r.source, OpType::transpose, {x}));
    r.target.add_output(xb);
    all.emplace_back("degenerate: transpose at 1x1", r.rule());
  }
  {  // degenerate: 1x1 matrices multiply element-wise (true on its family, which
     // pins ewmul's operands to one element; never verified, never applied wider)
    RuleBuilder r;
    auto [x, xb] = r.input("x", Shape{1, 1});
    auto [y, yb] = r.input("y", Shape{1, 1});
    r.source.add_output(op(r.source, OpType::matmul, {x, y}));
    r.target.add_output(op(r.target, OpType::ewmul, {xb, yb}));
    all.emplace_back("degenerate: matmul at 1x1", r.rule());
  }
  return all;
}

// True rules at shapes unlike the opset's.
std::vector<std::pair<const char*, Rule>> true_rules() {
  std::vector<std::pair<const char*, Rule>> all;
  {
    RuleBuilder r;
    auto [x, xb] = r.input("x", Shape{2, 3, 4});
    auto [y, yb] = r.input("y", Shape{2, 3, 4});
    auto [z, zb] = r.input("z", Shape{2, 3, 4});
    r.source.add_output(op(r.source, OpType::ewadd, {op(r.source, OpType::ewadd, {x, y}), z}));
    r.target.add_output(op(r.target, OpType::ewadd, {xb, op(r.target, OpType::ewadd, {yb, zb})}));
    all.emplace_back("ewadd associativity at rank 3", r.rule());
  }
  {
    RuleBuilder r;
    auto [x, xb] = r.input("x", Shape{1, 7});
    r.source.add_output(op(r.source, OpType::relu, {op(r.source, OpType::transpose, {x})}));
    r.target.add_output(op(r.target, OpType::transpose, {op(r.target, OpType::relu, {xb})}));
    all.emplace_back("relu and transpose at 1x7", r.rule());
  }
  {
    RuleBuilder r;
    auto [x, xb] = r.input("x", Shape{1, 3, 4, 4});
    auto [w1, w1b] = r.input("w1", Shape{2, 3, 1, 1}, true);
    auto [w2, w2b] = r.input("w2", Shape{5, 3, 1, 1}, true);
    r.source.add_output(op(r.source, OpType::conv2d, {x, w1}, conv_params()));
    r.source.add_output(op(r.source, OpType::conv2d, {x, w2}, conv_params()));
    TensorRef c =
        op(r.target, OpType::conv2d, {xb, op(r.target, OpType::concat, {w1b, w2b}, axis(0))}, conv_params());
    NodeId s = r.target.add(OpType::split, {c}, axis(1));
    r.target.add_output({s, 0});
    r.target.add_output({s, 1});
    all.emplace_back("1x1 convolutions of different widths fused", r.rule());
  }
  all.emplace_back("4 groups merged into 2", merge_groups_rule(8, 4, 2));
  return all;
}

}  // namespace

TEST_CASE("transposes carry their rank: rank-2 axioms prove nothing about rank 3", "[soundness]") {
  z3::context ctx;
  RuleProver prover(ctx, taso_axioms(), 10000, 200000);
  CHECK(prover.prove(transpose_matmul(Shape{2, 3}, Shape{3, 4})).outcome == ProofOutcome::proved);
  CHECK(prover.prove(transpose_matmul(Shape{2, 2, 2}, Shape{2, 2, 2})).outcome != ProofOutcome::proved);
  CHECK(prover.prove(concat_transpose(Shape{2, 3})).outcome == ProofOutcome::proved);
  CHECK(prover.prove(concat_transpose(Shape{2, 2, 2})).outcome != ProofOutcome::proved);
}

TEST_CASE("an axiom's transpose must say its rank", "[soundness]") {
  auto error_of = [](const char* text) {
    try {
      parse_axioms(text, "t.ax");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of("# c\naxiom a: forall x:[a,b]. transpose(transpose(x)) = x\n").find("needs its perm") !=
        std::string::npos);
  CHECK(error_of("# c\naxiom a: forall x:[a,b,c]. transpose[perm=[1,0]](x) = x\n").find("input rank 3") !=
        std::string::npos);
  CHECK(error_of("# c\naxiom a: forall x:[a,b]. transpose[perm=[1,0]](transpose[perm=[1,0]](x)) = x\n")
            .empty());
}

TEST_CASE("a rule whose sides differ in shape is refuted, whatever the axioms prove", "[soundness]") {
  // The axiom is false (its sides do not even have one shape): the concrete
  // checks must not trust the prover. The rule fits no small sizes (a 5x5 VALID
  // window needs 5x5 images), which once left it to the prover alone.
  AxiomSet bad = parse_axioms(
      "# false\naxiom pool_is_identity: forall x:[n,c,5,5]. pool_max[kernel=5, padding=valid](x) = x\n",
      "bad.ax");
  RuleBuilder r;
  auto [x, xb] = r.input("x", Shape{1, 2, 5, 5});
  r.source.add_output(op(r.source, OpType::pool_max, {x}, pool_params(5, Padding::valid)));
  r.target.add_output(xb);
  RuleVerifier verifier(bad, VerifyLimits{});
  RuleVerdict v = verifier.verify(r.rule());
  CHECK(v.status == RuleStatus::refuted);
  CHECK(v.note.find("shapes differ") != std::string::npos);
}

TEST_CASE("sizes equal only by chance are drawn different", "[soundness]") {
  z3::context ctx;
  RuleValidation v = validate_rule(ctx, grouped_conv_of_concats(), 10000);
  CHECK(v.result == Validation::refuted);
  CHECK(verdict(grouped_conv_of_concats()).status == RuleStatus::refuted);
}

TEST_CASE("validation builds merge_groups' parameters for each instance", "[soundness]") {
  RuleVerdict v = verdict(merge_groups_rule(8, 4, 2));
  INFO(v.note);
  CHECK(v.status == RuleStatus::verified);
}

TEST_CASE("wrong rules of every kind are never verified", "[soundness]") {
  for (const auto& [name, rule] : wrong_rules()) {
    RuleVerdict v = verdict(rule);
    INFO(name << ": " << rule_status_name(v.status) << ": " << v.note);
    CHECK(v.status != RuleStatus::verified);
    CHECK(v.status != RuleStatus::candidate);
  }
}

TEST_CASE("true rules at unusual shapes are verified", "[soundness]") {
  for (const auto& [name, rule] : true_rules()) {
    RuleVerdict v = verdict(rule);
    INFO(name << ": " << rule_status_name(v.status) << ": " << v.note);
    CHECK(v.status == RuleStatus::verified);
  }
}

namespace {

// conv(i, k1) + conv(i, k2) -> conv(i, k1 + k2), found with equal kernels.
Rule conv_sum_rule() {
  RuleBuilder r;
  auto [i, ib] = r.input("i", Shape{2, 4, 5, 5});
  auto [k1, k1b] = r.input("k1", Shape{4, 4, 3, 3}, true);
  auto [k2, k2b] = r.input("k2", Shape{4, 4, 3, 3}, true);
  r.source.add_output(op(r.source, OpType::ewadd,
                         {op(r.source, OpType::conv2d, {i, k1}, conv_params()),
                          op(r.source, OpType::conv2d, {i, k2}, conv_params())}));
  r.target.add_output(
      op(r.target, OpType::conv2d, {ib, op(r.target, OpType::ewadd, {k1b, k2b})}, conv_params()));
  return r.rule();
}

// conv(i, dw + C_pool) -> conv(i, dw) + pool_avg(i): C_pool means a 3x3 average.
Rule cpool_rule() {
  RuleBuilder r;
  auto [i, ib] = r.input("i", Shape{2, 4, 5, 5});
  auto [dw, dwb] = r.input("dw", Shape{4, 1, 3, 3}, true);
  OpParams c;
  c.shape = Shape{4, 1, 3, 3};
  TensorRef sum = op(r.source, OpType::ewadd, {dw, op(r.source, OpType::c_pool, {}, c)});
  r.source.add_output(op(r.source, OpType::conv2d, {i, sum}, conv_params()));
  r.target.add_output(op(r.target, OpType::ewadd,
                         {op(r.target, OpType::conv2d, {ib, dwb}, conv_params()),
                          op(r.target, OpType::pool_avg, {ib}, pool_params(3, Padding::same))}));
  return r.rule();
}

}  // namespace

TEST_CASE("a rule is applied only inside the family it holds for", "[soundness]") {
  SECTION("no broadcast in the target where the rule had equal shapes") {
    Graph g;
    TensorRef i{g.add_input("x", Shape{1, 2, 6, 6}), 0};
    TensorRef a{g.add_weight("a", Shape{3, 2, 3, 3}), 0};
    TensorRef b{g.add_weight("b", Shape{3, 2, 1, 3}), 0};  // a 1x3 kernel beside a 3x3 one
    g.add_output(op(g, OpType::ewadd, {op(g, OpType::conv2d, {i, a}), op(g, OpType::conv2d, {i, b})}));
    CHECK(applications_checked(g, conv_sum_rule()) == 0);
    Graph same;
    TensorRef j{same.add_input("x", Shape{1, 2, 6, 6}), 0};
    TensorRef c{same.add_weight("a", Shape{3, 2, 1, 3}), 0};
    TensorRef d{same.add_weight("b", Shape{3, 2, 1, 3}), 0};
    same.add_output(
        op(same, OpType::ewadd, {op(same, OpType::conv2d, {j, c}), op(same, OpType::conv2d, {j, d})}));
    CHECK(applications_checked(same, conv_sum_rule()) > 0);
  }
  SECTION("a constant keeps its kernel size") {
    Graph g;
    TensorRef i{g.add_input("x", Shape{1, 4, 6, 6}), 0};
    TensorRef dw{g.add_weight("dw", Shape{4, 1, 3, 5}), 0};
    OpParams c;
    c.shape = Shape{4, 1, 3, 5};
    g.add_output(op(g, OpType::conv2d, {i, op(g, OpType::ewadd, {dw, op(g, OpType::c_pool, {}, c)})}));
    CHECK(applications_checked(g, cpool_rule()) == 0);
  }
  SECTION("one-element operands stay one-element") {
    RuleBuilder r;
    auto [x, xb] = r.input("x", Shape{1, 1});
    auto [s, sb] = r.input("s", Shape{}, true);
    r.source.add_output(op(r.source, OpType::smul, {x, s}));
    r.target.add_output(op(r.target, OpType::ewmul, {xb, sb}));
    Pattern p = compile_pattern(r.rule().source);
    for (int64_t n : {1, 4}) {
      Graph g;
      TensorRef gx{g.add_input("x", Shape{n, n}), 0};
      TensorRef gs{g.add_weight("s", Shape{}), 0};
      g.add_output(op(g, OpType::smul, {gx, gs}));
      CHECK(find_matches(g, GraphIndex(g), p).size() == (n == 1 ? 1u : 0u));
    }
  }
}
