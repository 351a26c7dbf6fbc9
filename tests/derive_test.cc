// Derivations: a rule two rewrites away from a proven one is derived and its
// derivation replays; a step outside the used rule's family is refused; a
// refuted base rule takes its dependents with it; the derivation column
// survives the database file; verify derives from smaller rules and from
// same-size rules of an earlier wave.
#include <catch2/catch.hpp>
#include <filesystem>

#include "runtime/mpi/mpi_world.h"
#include "runtime/rewrite/derivation.h"
#include "tests/rule_builder.h"
#include "tests/temp_dir.h"
#include "tests/verify_fixture.h"
#include "verify/derive.h"
#include "verify/verify.h"

using namespace superopt;
using superopt::test::op;
using superopt::test::RuleBuilder;

namespace {

// relu applied n times to x.
TensorRef relus(Graph& g, TensorRef x, int n) {
  for (int i = 0; i < n; ++i) x = op(g, OpType::relu, {x});
  return x;
}

Rule relu_chain_rule(int from, int to, RuleStatus status) {
  RuleBuilder r;
  auto [x, xb] = r.input("x", Shape{2, 4});
  r.source.add_output(relus(r.source, x, from));
  r.target.add_output(relus(r.target, xb, to));
  Rule rule = r.rule();
  rule.status = status;
  return rule;
}

// relu(conv(x, w)) = conv[relu](x, w), at the group count the kernel gives.
Rule conv_relu_rule(int64_t kernel_in_channels, RuleStatus status) {
  RuleBuilder r;
  auto [x, xb] = r.input("x", Shape{1, 4, 5, 5});
  auto [w, wb] = r.input("w", Shape{4, kernel_in_channels, 3, 3}, true);
  OpParams fused;
  fused.activation = Activation::relu;
  r.source.add_output(op(r.source, OpType::relu, {op(r.source, OpType::conv2d, {x, w})}));
  r.target.add_output(op(r.target, OpType::conv2d, {xb, wb}, fused));
  Rule rule = r.rule();
  rule.status = status;
  return rule;
}

// ewadd(x, y) = ewadd(y, x), under `wrap` relus on both sides; renamed:
// ewadd(y, x) = ewadd(x, y), the same rule with its inputs' names swapped.
Rule ewadd_swap_rule(int wrap, bool renamed = false) {
  RuleBuilder r;
  auto [x, xb] = r.input("x", Shape{2, 4});
  auto [y, yb] = r.input("y", Shape{2, 4});
  if (renamed) {
    std::swap(x, y);
    std::swap(xb, yb);
  }
  r.source.add_output(relus(r.source, op(r.source, OpType::ewadd, {x, y}), wrap));
  r.target.add_output(relus(r.target, op(r.target, OpType::ewadd, {yb, xb}), wrap));
  return r.rule();
}

RuleDatabase database(std::vector<Rule> rules) {
  RuleDatabase db;
  db.rules = std::move(rules);
  return db;
}

}  // namespace

TEST_CASE("a rule two rewrites away is derived, and its derivation replays", "[derive]") {
  RuleDatabase db =
      database({relu_chain_rule(2, 1, RuleStatus::verified), relu_chain_rule(3, 1, RuleStatus::candidate)});
  verify::DeriveSummary s = verify::derive_rules(db, {});
  REQUIRE(db.rules[1].status == RuleStatus::derived);
  CHECK(db.rules[1].derivation.size() == 2);
  CHECK(s.by_steps.at(2) == 1);
  CHECK_FALSE(derivation_error(db.rules, 1));
  CHECK(db.rules[0].status == RuleStatus::verified);  // the minimal set

  SECTION("one step is not enough") {
    RuleDatabase fresh =
        database({relu_chain_rule(2, 1, RuleStatus::verified), relu_chain_rule(3, 1, RuleStatus::candidate)});
    verify::derive_rules(fresh, {.max_steps = 1});
    CHECK(fresh.rules[1].status == RuleStatus::candidate);
  }
  SECTION("the derivation survives the file") {
    test::TempDir dir;
    std::string path = dir.file("rules.h5");
    db.write(path);
    RuleDatabase back = RuleDatabase::read(path);
    CHECK(back.rules[1].status == RuleStatus::derived);
    CHECK(back.rules[1].derivation == db.rules[1].derivation);
    CHECK_FALSE(derivation_error(back.rules, 1));
  }
  SECTION("a refuted base rule takes its dependents with it") {
    db.rules[0].status = RuleStatus::refuted;
    CHECK(invalidate_broken_derivations(db.rules) == 1);
    CHECK(db.rules[1].status == RuleStatus::candidate);
    CHECK(db.rules[1].derivation.empty());
    CHECK(db.rules[1].note.find("rule 0") != std::string::npos);
  }
  SECTION("a tampered derivation does not replay") {
    db.rules[1].derivation.pop_back();
    CHECK(derivation_error(db.rules, 1).value().find("do not meet") != std::string::npos);
  }
  SECTION("a derivation may not use its own rule, nor one after it") {
    for (DerivationStep& step : db.rules[1].derivation) step.rule = 1;
    CHECK(derivation_error(db.rules, 1).value().find("does not come before it") != std::string::npos);
  }
}

TEST_CASE("a derivation step outside the used rule's family is refused", "[derive]") {
  // Fusing relu into a dense convolution says nothing of a grouped one: the
  // matcher pins the group count, so the grouped rule is not derived, and a
  // derivation that claims it does not replay.
  RuleDatabase db =
      database({conv_relu_rule(4, RuleStatus::verified), conv_relu_rule(2, RuleStatus::candidate)});
  verify::derive_rules(db, {});
  CHECK(db.rules[1].status == RuleStatus::candidate);
  RuleDatabase dense =
      database({conv_relu_rule(4, RuleStatus::verified), conv_relu_rule(4, RuleStatus::candidate)});
  verify::derive_rules(dense, {});
  REQUIRE(dense.rules[1].status == RuleStatus::derived);
  db.rules[1].status = RuleStatus::derived;
  db.rules[1].derivation = dense.rules[1].derivation;
  CHECK(derivation_error(db.rules, 1).value().find("does not match at the stored site") != std::string::npos);
}

TEST_CASE("verify derives from the smaller proven rules and asks Z3 only about the rest", "[derive]") {
  static const MpiWorld world;  // one process: the whole pool
  test::TempDir dir;
  for (bool derive_first : {true, false}) {
    RuleDatabase db = database({ewadd_swap_rule(1), ewadd_swap_rule(0)});
    VerifyOptions options;
    options.save_path = dir.file("rules.h5");
    options.derive_first = derive_first;
    const VerifySummary s = verify_rules(db, test::taso_axioms(), options);
    CHECK(db.rules[1].status == RuleStatus::verified);  // the smaller one, first
    if (derive_first) {
      REQUIRE(db.rules[0].status == RuleStatus::derived);
      CHECK(db.rules[0].derivation.size() == 1);
      CHECK(db.rules[0].derivation[0].rule == 1);
      CHECK_FALSE(derivation_error(db.rules, 0));
      CHECK(s.derived == 1);
      CHECK(RuleDatabase::read(options.save_path).rules[0].derivation == db.rules[0].derivation);
    } else {
      CHECK(db.rules[0].status == RuleStatus::verified);
      CHECK(s.derived == 0);
    }
  }
}

TEST_CASE("verify derives from a rule of the same size that an earlier wave proved", "[derive]") {
  static const MpiWorld world;  // one process: the whole pool
  test::TempDir dir;
  for (int wave_rules : {1, 0}) {
    // Two rules of one size, the second the first with its inputs renamed:
    // nothing smaller proves either.
    RuleDatabase db = database({ewadd_swap_rule(1), ewadd_swap_rule(1, true)});
    VerifyOptions options;
    options.save_path = dir.file("rules.h5");
    options.wave_rules = wave_rules;
    const VerifySummary s = verify_rules(db, test::taso_axioms(), options);
    CHECK(db.rules[0].status == RuleStatus::verified);
    if (wave_rules == 1) {  // the second rule's wave comes after the first's
      REQUIRE(db.rules[1].status == RuleStatus::derived);
      REQUIRE(db.rules[1].derivation.size() == 1);
      CHECK(db.rules[1].derivation[0].rule == 0);
      CHECK_FALSE(derivation_error(db.rules, 1));
      CHECK(s.derived == 1);
      CHECK(s.derived_same_size == 1);
      CHECK(s.checked - s.derived == 1);  // Z3 saw the first rule only
    } else {                              // one wave: both go to Z3
      CHECK(db.rules[1].status == RuleStatus::verified);
      CHECK(s.derived == 0);
      CHECK(s.checked == 2);
    }
  }
}
