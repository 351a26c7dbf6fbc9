// The verifier: TASO's Figure 2 rules are verified, deliberately wrong rules never
// are (and are refuted with a counterexample), and the axioms do not prove them.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "runtime/core/error.h"
#include "runtime/mpi/mpi_world.h"
#include "tests/rule_builder.h"
#include "tests/verify_fixture.h"
#include "verify/axiom_set.h"
#include "verify/prover.h"
#include "verify/rule_validation.h"
#include "verify/rule_verifier.h"
#include "verify/verify.h"

using namespace superopt;
using namespace superopt::verify;
using superopt::test::axis;
using superopt::test::op;
using superopt::test::RuleBuilder;
using superopt::test::taso_axioms;

namespace {

// MPI for verify_rules, started once: it cannot start again once finalised.
const MpiWorld& mpi_world() {
  static const MpiWorld world;
  return world;
}

RuleStatus verdict(const Rule& r) {
  static RuleVerifier verifier(taso_axioms(), VerifyLimits{});
  return verifier.verify(r).status;
}

// Fusing two matmuls that share an input (TASO Figure 2, left).
Rule matmul_fusion() {
  RuleBuilder b;
  auto [x, x2] = b.input("x", Shape{2, 4});
  auto [w1, w1b] = b.input("w1", Shape{4, 4}, true);
  auto [w2, w2b] = b.input("w2", Shape{4, 3}, true);
  b.source.add_output(op(b.source, OpType::matmul, {x, w1}));
  b.source.add_output(op(b.source, OpType::matmul, {x, w2}));
  TensorRef m = op(b.target, OpType::matmul, {x2, op(b.target, OpType::concat, {w1b, w2b}, axis(1))});
  NodeId s = b.target.add(OpType::split, {m}, axis(1));
  b.target.add_output({s, 0});
  b.target.add_output({s, 1});
  return b.rule();
}

// Fusing two convolutions that share an input (TASO Figure 2, right).
Rule conv_fusion(Activation act) {
  RuleBuilder b;
  auto [x, x2] = b.input("x", Shape{1, 4, 5, 5});
  auto [w1, w1b] = b.input("w1", Shape{4, 4, 3, 3}, true);
  auto [w2, w2b] = b.input("w2", Shape{2, 4, 3, 3}, true);
  OpParams conv;
  conv.activation = act;
  b.source.add_output(op(b.source, OpType::conv2d, {x, w1}, conv));
  b.source.add_output(op(b.source, OpType::conv2d, {x, w2}, conv));
  TensorRef c = op(b.target, OpType::conv2d, {x2, op(b.target, OpType::concat, {w1b, w2b}, axis(0))}, conv);
  NodeId s = b.target.add(OpType::split, {c}, axis(1));
  b.target.add_output({s, 0});
  b.target.add_output({s, 1});
  return b.rule();
}

// Wrong: the blocks of a 2x2 block matrix in the wrong places.
Rule concat_across_axes() {
  RuleBuilder b;
  auto [x, xb] = b.input("x", Shape{2, 2});
  auto [y, yb] = b.input("y", Shape{2, 2});
  auto [z, zb] = b.input("z", Shape{2, 2});
  auto [w, wb] = b.input("w", Shape{2, 2});
  b.source.add_output(
      op(b.source, OpType::concat,
         {op(b.source, OpType::concat, {x, y}, axis(1)), op(b.source, OpType::concat, {z, w}, axis(1))},
         axis(0)));
  b.target.add_output(
      op(b.target, OpType::concat,
         {op(b.target, OpType::concat, {xb, yb}, axis(0)), op(b.target, OpType::concat, {zb, wb}, axis(0))},
         axis(1)));
  return b.rule();
}

// Wrong: transpose(x y) = transpose(x) transpose(y) (the factors must swap).
Rule transpose_matmul_unswapped() {
  RuleBuilder b;
  auto [x, xb] = b.input("x", Shape{3, 3});
  auto [y, yb] = b.input("y", Shape{3, 3});
  b.source.add_output(op(b.source, OpType::transpose, {op(b.source, OpType::matmul, {x, y})}));
  b.target.add_output(op(b.target, OpType::matmul,
                         {op(b.target, OpType::transpose, {xb}), op(b.target, OpType::transpose, {yb})}));
  return b.rule();
}

// Wrong: split cuts at the most recent concat (x|y then z), not at the first one.
Rule split_at_first_concat() {
  RuleBuilder b;
  auto [x, xb] = b.input("x", Shape{2, 3});
  auto [y, yb] = b.input("y", Shape{2, 3});
  auto [z, zb] = b.input("z", Shape{2, 3});
  TensorRef inner = op(b.source, OpType::concat, {x, y}, axis(1));
  NodeId s = b.source.add(OpType::split, {op(b.source, OpType::concat, {inner, z}, axis(1))}, axis(1));
  b.source.add_output({s, 1});
  // Claims the second part is concat(y, z), as if the split were at x.
  b.target.add_output(op(b.target, OpType::concat, {yb, zb}, axis(1)));
  (void)xb;
  return b.rule();
}

// Wrong: relu is not additive.
Rule relu_additive() {
  RuleBuilder b;
  auto [x, xb] = b.input("x", Shape{2, 4});
  auto [y, yb] = b.input("y", Shape{2, 4});
  b.source.add_output(op(b.source, OpType::relu, {op(b.source, OpType::ewadd, {x, y})}));
  b.target.add_output(
      op(b.target, OpType::ewadd, {op(b.target, OpType::relu, {xb}), op(b.target, OpType::relu, {yb})}));
  return b.rule();
}

// Wrong: transpose moves into one factor of ewmul only. The axioms once proved
// it, through smul = ewmul stated without shapes.
Rule transpose_one_ewmul_factor() {
  RuleBuilder b;
  auto [x, xb] = b.input("x", Shape{2, 2});
  auto [y, yb] = b.input("y", Shape{2, 2});
  b.source.add_output(op(b.source, OpType::transpose, {op(b.source, OpType::ewmul, {x, y})}));
  b.target.add_output(op(b.target, OpType::ewmul, {op(b.target, OpType::transpose, {xb}), yb}));
  return b.rule();
}

// concat(concat(x, y), z) = concat(x, concat(y, z)): true, and proved only
// from the axioms that do not mention split (concat_assoc is `unless split`).
Rule concat_reassociated() {
  RuleBuilder b;
  auto [x, xb] = b.input("x", Shape{2, 3});
  auto [y, yb] = b.input("y", Shape{2, 3});
  auto [z, zb] = b.input("z", Shape{2, 3});
  b.source.add_output(
      op(b.source, OpType::concat, {op(b.source, OpType::concat, {x, y}, axis(1)), z}, axis(1)));
  b.target.add_output(
      op(b.target, OpType::concat, {xb, op(b.target, OpType::concat, {yb, zb}, axis(1))}, axis(1)));
  return b.rule();
}

// smul(smul(x, v), w) = smul(smul(x, w), v): true, but scalars commute only
// through smul = ewmul on one-element tensors (smul_ewmul_one, ewmul_comm_one),
// axioms that apply an operator the rule does not have.
Rule smul_scalars_swapped() {
  RuleBuilder b;
  auto [x, xb] = b.input("x", Shape{2, 4});
  auto [v, vb] = b.input("v", Shape{});
  auto [w, wb] = b.input("w", Shape{});
  b.source.add_output(op(b.source, OpType::smul, {op(b.source, OpType::smul, {x, v}), w}));
  b.target.add_output(op(b.target, OpType::smul, {op(b.target, OpType::smul, {xb, wb}), vb}));
  return b.rule();
}

// smul(x, s + s) = smul(x + x, s): needs smul to distribute over a sum of scalars.
Rule smul_of_doubled_scalar() {
  RuleBuilder b;
  auto [x, xb] = b.input("x", Shape{2, 4});
  auto [s, sb] = b.input("s", Shape{});
  b.source.add_output(op(b.source, OpType::smul, {x, op(b.source, OpType::ewadd, {s, s})}));
  b.target.add_output(op(b.target, OpType::smul, {op(b.target, OpType::ewadd, {xb, xb}), sb}));
  return b.rule();
}

// conv(concat(i, i), k) with 2 groups (k reads 4 of the 8 channels) = conv(i, k).
Rule conv_of_repeated_input() {
  RuleBuilder b;
  auto [x, xb] = b.input("i", Shape{2, 4, 5, 5});
  auto [k, kb] = b.input("k", Shape{4, 4, 3, 3}, true);
  b.source.add_output(op(b.source, OpType::conv2d, {op(b.source, OpType::concat, {x, x}, axis(1)), k}));
  b.target.add_output(op(b.target, OpType::conv2d, {xb, kb}));
  return b.rule();
}

// conv(x, kg) with 2 groups = conv(x, merge_groups(kg)) with 1 (TASO's merge_gconv),
// or, wrong, with merge_groups told the kernel had 4 groups (the blocks misplaced).
Rule merge_groups_rule(Activation act, int32_t stated_groups) {
  RuleBuilder b;
  auto [x, x2] = b.input("i", Shape{2, 4, 5, 5});
  auto [w, w2] = b.input("kg", Shape{4, 2, 3, 3}, true);
  OpParams conv;
  conv.activation = act;
  OpParams merge;
  merge.groups = stated_groups;
  merge.into = stated_groups / 2;
  b.source.add_output(op(b.source, OpType::conv2d, {x, w}, conv));
  b.target.add_output(
      op(b.target, OpType::conv2d, {x2, op(b.target, OpType::merge_groups, {w2}, merge)}, conv));
  return b.rule();
}

}  // namespace

TEST_CASE("merging a grouped convolution's groups is verified; misstated groups are refuted", "[verify]") {
  CHECK(verdict(merge_groups_rule(Activation::none, 2)) == RuleStatus::verified);
  CHECK(verdict(merge_groups_rule(Activation::relu, 2)) == RuleStatus::verified);
  // merge_groups[groups=4, into=2] of a 2-group kernel gives a 2-group kernel [4,4,3,3] whose
  // blocks are not where the 2-group convolution had them.
  RuleVerifier verifier(taso_axioms(), VerifyLimits{});
  CHECK(verifier.verify(merge_groups_rule(Activation::none, 4)).status == RuleStatus::refuted);
}

TEST_CASE("the rules of TASO's Figure 2 are verified", "[verify]") {
  CHECK(verdict(matmul_fusion()) == RuleStatus::verified);
  CHECK(verdict(conv_fusion(Activation::none)) == RuleStatus::verified);
  CHECK(verdict(conv_fusion(Activation::relu)) == RuleStatus::verified);
}

TEST_CASE("wrong rules are refuted with a counterexample", "[verify]") {
  RuleVerifier verifier(taso_axioms(), VerifyLimits{});
  for (const Rule& r : {concat_across_axes(), transpose_matmul_unswapped(), split_at_first_concat(),
                        relu_additive(), transpose_one_ewmul_factor()}) {
    RuleVerdict v = verifier.verify(r);
    CHECK(v.status == RuleStatus::refuted);
    CHECK((v.note.find("differs at") != std::string::npos ||
           v.note.find("shapes differ") != std::string::npos));
  }
}

TEST_CASE("verify_rules decides the undecided rules only and saves the database", "[verify]") {
  mpi_world();  // one process: it is the whole pool
  RuleDatabase db;
  db.rules = {matmul_fusion(), relu_additive(), relu_additive(), relu_additive()};
  db.rules[2].status = RuleStatus::verified;  // settled, if wrongly: not tried again
  db.rules[2].family = SizeFamily{};
  // Proven in a file from before size families: decided again.
  db.rules[3].status = RuleStatus::verified;
  VerifyOptions options;
  options.save_path =
      (std::filesystem::temp_directory_path() / ("verify_rules_" + std::to_string(getpid()) + ".h5"))
          .string();
  const VerifySummary s = verify_rules(db, taso_axioms(), options);
  CHECK(s.rules == 4);
  CHECK(s.checked == 3);
  CHECK(s.redecided_without_family == 1);
  CHECK(s.workers == 1);
  CHECK(s.counts[static_cast<int>(RuleStatus::verified)] == 2);
  CHECK(s.counts[static_cast<int>(RuleStatus::refuted)] == 2);
  CHECK(db.rules[0].status == RuleStatus::verified);
  CHECK(db.rules[0].family.has_value());  // stated with the verdict
  CHECK(db.rules[1].status == RuleStatus::refuted);
  CHECK(db.rules[3].status == RuleStatus::refuted);
  const RuleDatabase saved = RuleDatabase::read(options.save_path);
  std::filesystem::remove(options.save_path);
  REQUIRE(saved.rules.size() == 4);
  for (int i = 0; i < 4; ++i) {
    CHECK(saved.rules[i].status == db.rules[i].status);
    CHECK(saved.rules[i].family == db.rules[i].family);
  }
}

TEST_CASE("verify_rules refuses axioms that never mention an operator the rules use", "[verify]") {
  mpi_world();
  RuleDatabase db;
  db.rules = {matmul_fusion()};
  const AxiomSet partial =
      parse_axioms("# ewadd commutes\naxiom ewadd_comm: forall x:[a,b] y:[a,b]. ewadd(x, y) = ewadd(y, x)\n",
                   "partial.ax");
  VerifyOptions options;
  options.save_path = "never-written.h5";
  CHECK_THROWS_WITH(verify_rules(db, partial, options),
                    Catch::Contains("partial.ax never mention") && Catch::Contains("matmul"));
  CHECK(!std::filesystem::exists(options.save_path));
}

TEST_CASE("the axioms alone do not prove wrong rules", "[verify]") {
  z3::context ctx;
  RuleProver prover(ctx, taso_axioms(), 10000, 200000);
  int i = 0;
  for (const Rule& r : {concat_across_axes(), transpose_matmul_unswapped(), split_at_first_concat(),
                        relu_additive(), transpose_one_ewmul_factor()}) {
    INFO("wrong rule " << i++);
    CHECK(prover.prove(r).outcome != ProofOutcome::proved);
  }
  CHECK(prover.prove(matmul_fusion()).outcome == ProofOutcome::proved);
}

TEST_CASE("concat associativity proves rules without split and never one with split", "[verify]") {
  z3::context ctx;
  RuleProver prover(ctx, taso_axioms(), 10000, 200000);
  CHECK(prover.prove(concat_reassociated()).outcome == ProofOutcome::proved);
  CHECK(prover.prove(split_at_first_concat()).outcome != ProofOutcome::proved);
  CHECK(verdict(concat_reassociated()) == RuleStatus::verified);
  // The theory of a rule with split leaves concat_assoc out; without split,
  // every axiom that mentions split is left out instead.
  auto names = [](const std::vector<const Axiom*>& theory) {
    std::set<std::string> n;
    for (const Axiom* a : theory) n.insert(a->name);
    return n;
  };
  const auto with_split = names(taso_axioms().theory_for({OpType::concat, OpType::split}));
  const auto without_split = names(taso_axioms().theory_for({OpType::concat}));
  CHECK(with_split.count("split0_concat") == 1);
  CHECK(with_split.count("concat_assoc") == 0);
  CHECK(without_split.count("split0_concat") == 0);
  CHECK(without_split.count("concat_assoc") == 1);
}

TEST_CASE("a proof tries the axioms over the rule's own operators first", "[verify]") {
  z3::context ctx;
  RuleProver prover(ctx, taso_axioms(), 10000, 200000);
  // matmul, concat and split: their own axioms prove it.
  const Proof own = prover.prove(matmul_fusion());
  CHECK(own.outcome == ProofOutcome::proved);
  CHECK(own.own_operators_only);
  CHECK(own.attempts == 1);
  // The own axioms of smul (smul_assoc and the like) cannot commute two
  // scalars: the whole theory, tried next, proves it.
  const std::set<OpType> smul_ops = {OpType::input, OpType::smul};
  const auto theory = taso_axioms().theory_for(smul_ops);
  const auto own_axioms = own_operator_axioms(theory, smul_ops);
  CHECK(!own_axioms.empty());
  CHECK(own_axioms.size() < theory.size());
  for (const Axiom* a : own_axioms) CHECK(a->operators() == std::set<OpType>{OpType::smul});
  const Proof fallback = prover.prove(smul_scalars_swapped());
  CHECK(fallback.outcome == ProofOutcome::proved);
  CHECK(!fallback.own_operators_only);
  CHECK(fallback.attempts >= 2);
  // Wrong rules stay unproved by both attempts.
  CHECK(prover.prove(relu_additive()).outcome != ProofOutcome::proved);
}

TEST_CASE("the added axioms prove what TASO's could not", "[verify]") {
  CHECK(verdict(smul_of_doubled_scalar()) == RuleStatus::verified);
  CHECK(verdict(conv_of_repeated_input()) == RuleStatus::verified);
}

TEST_CASE("small-tensor validation names the shapes of a counterexample", "[verify]") {
  z3::context ctx;
  RuleValidation v = validate_rule(ctx, relu_additive(), 10000);
  REQUIRE(v.result == Validation::refuted);
  CHECK(v.note.find("differs at x=2x4 y=2x4") != std::string::npos);
  CHECK(validate_rule(ctx, matmul_fusion(), 10000).result == Validation::passed);
}

TEST_CASE("axiom files: errors name the line", "[verify][axioms]") {
  auto error_of = [](const char* text) {
    try {
      parse_axioms(text, "t.ax");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("# c\naxiom a: forall x:[a]. foo(x) = x\n") ==
        "t.ax:2: unknown operator or unbound tensor 'foo'");
  CHECK(error_of("axiom a: forall x:[a]. relu(x) = x\n").find("t.ax:1: axiom a has no comment") == 0);
  CHECK(error_of("# c\n\n# d\naxiom a: forall x:[a]. relu(x, x) = x\n") ==
        "t.ax:4: relu takes 1 inputs, given 2");
  CHECK(error_of("# c\naxiom a: forall x:[a].\n    relu(y) = x\n") ==
        "t.ax:3: unknown operator or unbound tensor 'y'");
  CHECK(error_of("# c\naxiom a: forall x:[a] s:stride. relu(x) = x\n") ==
        "t.ax:2: variable s is bound but not used");
  CHECK(error_of("# c\naxiom a: forall x:[a]. concat(x, x) = x\n") ==
        "t.ax:2: concat needs its axis parameter");
  CHECK(error_of("# nothing\n") == "t.ax: no axioms");
  CHECK(error_of("# c\naxiom a unless frob: forall x:[a]. relu(x) = x\n") ==
        "t.ax:2: unknown operator 'frob' after 'unless'");
  CHECK(error_of("# c\naxiom a unless relu: forall x:[a]. relu(x) = x\n") ==
        "t.ax:2: axiom a mentions relu, which it is unless");
  AxiomSet ok = parse_axioms("# relu of relu\naxiom a: forall x:[a,b]. relu(relu(x)) =\n  relu(x)\n", "t.ax");
  REQUIRE(ok.axioms.size() == 1);
  CHECK(ok.axioms[0].comment == "relu of relu");
  CHECK(term_str(ok.axioms[0].lhs) == "relu(relu(x))");
}

TEST_CASE("the TASO axiom file parses and covers the taso operator set", "[verify][axioms]") {
  const AxiomSet& ax = taso_axioms();
  CHECK(ax.axioms.size() >= 43);
  for (OpType op :
       {OpType::ewadd, OpType::ewmul, OpType::smul, OpType::transpose, OpType::matmul, OpType::conv2d,
        OpType::enlarge, OpType::merge_groups, OpType::relu, OpType::pool_avg, OpType::pool_max,
        OpType::concat, OpType::split, OpType::c_pool, OpType::i_conv, OpType::i_matmul, OpType::i_ewmul})
    CHECK(ax.mentions(op));
  CHECK_FALSE(ax.mentions(OpType::softmax));
}
