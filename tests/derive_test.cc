// Derivations: a rule two rewrites away from a proven one is derived and its
// derivation replays; sides that differ only in what they share meet; a step outside the used rule's family
// is refused; a refuted base rule takes its dependents with it; the derivation column survives the database
// file; verify derives from smaller rules and from same-size rules of an earlier wave; a rule false at a
// member of its shape family (parts of a sum that differ) is refuted, never derived, named by check-proofs,
// and `verify --revalidate` refutes it where it was verified.
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>

#include "runtime/cli/commands.h"
#include "runtime/core/graph_hash.h"
#include "runtime/mpi/mpi_world.h"
#include "runtime/rewrite/derivation.h"
#include "runtime/rewrite/rule_instance.h"
#include "runtime/rewrite/size_family.h"
#include "tests/class_path_fixture.h"
#include "tests/rule_builder.h"
#include "tests/temp_dir.h"
#include "tests/verify_fixture.h"
#include "verify/derive.h"
#include "verify/rule_validation.h"
#include "verify/verify.h"

using namespace superopt;
using superopt::test::conv_relu_rule;
using superopt::test::database;
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

// ewmul(concat0(a, b), concat0(c, ewadd(d, d))) = ewmul(concat0(c, d),
// concat0(a, ewadd(b, b))) over weights a, c of `rows_ac` rows and inputs b, d
// of 2 rows (all 4 wide): true while rows(a) = rows(c), but the matcher only
// asks the sums rows(a) + rows(b) and rows(c) + rows(d) to agree.
Rule concat_ewmul_rule(const char* a, const char* b, const char* c, const char* d, int64_t rows_ac,
                       RuleStatus status) {
  RuleBuilder r;
  std::map<std::string, std::pair<TensorRef, TensorRef>> vars;
  for (const char* name : {a, b, c, d})
    if (!vars.count(name)) {
      const bool weight = name[0] == 'w';
      vars.emplace(name, r.input(name, Shape{weight ? rows_ac : 2, 4}, weight));
    }
  auto side = [&](Graph& g, bool target, const char* p, const char* q, const char* u, const char* v) {
    auto at = [&](const char* n) { return target ? vars.at(n).second : vars.at(n).first; };
    TensorRef left = op(g, OpType::concat, {at(p), at(q)}, test::axis(0));
    TensorRef doubled = op(g, OpType::ewadd, {at(v), at(v)});
    g.add_output(op(g, OpType::ewmul, {left, op(g, OpType::concat, {at(u), doubled}, test::axis(0))}));
  };
  side(r.source, false, a, b, c, d);
  side(r.target, true, c, d, a, b);
  Rule rule = r.rule();
  rule.status = status;
  return rule;
}

// The lead's rule 2400 of the 4-operator sample (w 4x4, x 2x4), and rule 2796,
// the same with x2 for w2 and x1 for w1, which one step of 2400 derives at its
// own shapes.
Rule rule_2400(RuleStatus status) {
  return concat_ewmul_rule("w2", "x1", "w1", "x2", 4, status);
}
Rule rule_2796(RuleStatus status) {
  return concat_ewmul_rule("x2", "x1", "x1", "x2", 2, status);
}

// ewmul(ewadd(x, y), ewadd(y, x)) = ewmul(s, s), s = ewadd(x, y) made once:
// one swap makes the source compute the target, with ewadd(x, y) made twice.
Rule shared_sum_rule() {
  RuleBuilder r;
  auto [x, xb] = r.input("x", Shape{2, 4});
  auto [y, yb] = r.input("y", Shape{2, 4});
  r.source.add_output(op(r.source, OpType::ewmul,
                         {op(r.source, OpType::ewadd, {x, y}), op(r.source, OpType::ewadd, {y, x})}));
  TensorRef s = op(r.target, OpType::ewadd, {xb, yb});
  r.target.add_output(op(r.target, OpType::ewmul, {s, s}));
  return r.rule();
}

}  // namespace

TEST_CASE("sides that differ only in what they share meet", "[derive]") {
  Rule swap = ewadd_swap_rule(0);
  swap.status = RuleStatus::verified;
  RuleDatabase db = database({swap, shared_sum_rule()});
  verify::derive_rules(db, {.max_steps = 1});
  REQUIRE(db.rules[1].status == RuleStatus::derived);
  REQUIRE(db.rules[1].derivation.size() == 1);
  CHECK_FALSE(derivation_error(db.rules, 1));

  // The step's result holds two ewadd nodes where the target holds one.
  const DirectedRule d = compile_rule(db.rules[0], 0).at(db.rules[1].derivation[0].reversed);
  const std::optional<Match> m = occurrence_at(db.rules[1].source, d, db.rules[1].derivation[0]);
  REQUIRE(m);
  const std::optional<Graph> met = apply_rule(db.rules[1].source, *m, d);
  REQUIRE(met);
  CHECK_FALSE(structurally_equal(*met, db.rules[1].target));
  CHECK(same_outputs(*met, db.rules[1].target));
  CHECK(outputs_hash(*met) == outputs_hash(db.rules[1].target));
  CHECK(canonical_hash(*met) != canonical_hash(db.rules[1].target));

  SECTION("a side that computes something else still does not meet") {
    db.rules[1].target = db.rules[1].source;
    Graph& t = db.rules[1].target;
    t.set_outputs({{t.node(t.outputs()[0].node).inputs()[0].node, 0}});  // ewadd(x, y) alone
    CHECK(derivation_error(db.rules, 1).value().find("do not meet") != std::string::npos);
  }
}

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

TEST_CASE("a rule true where the parts of a sum line up is proven for that family only", "[derive][family]") {
  // ewmul over concats of rows w2, x1 against w1, x2: true where w2 meets w1
  // (the family states w2.0=w1.0, x1.0=x2.0), false at w2 4 rows and x1 2
  // against w1 3 and x2 3 (both sums 6), where the matcher must not apply it.
  z3::context ctx;
  Rule rule = rule_2400(RuleStatus::candidate);
  const verify::RuleValidation v = verify::validate_rule(ctx, rule, 1000);
  CHECK(v.result == verify::Validation::passed);
  CHECK_FALSE(verify::family_difference(rule));
  rule.status = RuleStatus::verified;
  rule.family = size_family_of(rule);
  const std::string family = size_family_text(*rule.family);
  CHECK(family.find("w1.0=w2.0") != std::string::npos);
  CHECK(family.find("x1.0=x2.0") != std::string::npos);
  for (const DirectedRule& d : compile_rule(rule, 0)) {
    const std::vector<Shape> shapes = rule_variable_shapes(d);
    std::vector<Shape> apart = shapes;
    for (size_t k = 0; k < shapes.size(); ++k) {
      const std::string& name = d.source.variable_names[k];
      apart[k].set(0, name == "w2" ? 4 : name == "x1" ? 2 : 3);
    }
    CHECK(instantiate(d, shapes));
    CHECK_FALSE(instantiate(d, apart));
  }
  // A rule false in its family: x1 and x2 move apart on their own.
  CHECK(verify::family_difference(rule_2796(RuleStatus::candidate)));
}

namespace {

// Rule 2796 derived from rule 2400 by the derivation search alone, as verify
// stored it before derived rules were checked over their family. The rules
// go through the file first, which stores their graphs in its own node order.
RuleDatabase unchecked_derivation(const std::string& path) {
  RuleDatabase made = database({rule_2400(RuleStatus::verified), rule_2796(RuleStatus::candidate)});
  for (Rule& r : made.rules) r.family = size_family_of(r);  // stated, as verify stores them
  made.write(path);
  RuleDatabase db = RuleDatabase::read(path);
  RuleIndex index;
  for (DirectedRule& d : compile_rule(db.rules[0], 0)) index.add(std::move(d));
  std::optional<Derivation> d = verify::find_derivation(db.rules[1], index, {});
  REQUIRE(d);
  db.rules[1].status = RuleStatus::derived;
  db.rules[1].derivation = *d;
  REQUIRE_FALSE(derivation_error(db.rules, 1));  // it replays at the rule's own shapes
  return db;
}

}  // namespace

TEST_CASE("a derivation of a rule false in its family is not accepted", "[derive][family]") {
  static const MpiWorld world;  // one process: the whole pool
  test::TempDir dir;
  const RuleDatabase stored = unchecked_derivation(dir.file("unchecked.h5"));

  SECTION("derive does not derive it") {
    RuleDatabase db = database({rule_2400(RuleStatus::verified), rule_2796(RuleStatus::unknown)});
    verify::derive_rules(db, {});
    CHECK(db.rules[1].status == RuleStatus::unknown);
  }
  SECTION("verify refutes it instead of deriving it") {
    RuleDatabase db = database({rule_2400(RuleStatus::verified), rule_2796(RuleStatus::candidate)});
    VerifyOptions options;
    options.save_path = dir.file("rules.h5");
    const VerifySummary s = verify_rules(db, test::taso_axioms(), options);
    CHECK(db.rules[1].status == RuleStatus::refuted);
    CHECK(s.derived == 0);
  }
  SECTION("check-proofs names a stored one") {
    const std::string path = dir.file("stored.h5");
    stored.write(path);
    CHECK(db_check_proofs_command({path}) == 0);  // the derivation alone replays
    CHECK(db_check_proofs_command({path}, verify::family_difference) == 1);
  }
  SECTION("verify refutes a stored one; --revalidate keeps the verified rule it used, true in its family") {
    for (bool revalidate : {false, true}) {
      RuleDatabase db = stored;
      VerifyOptions options;
      options.save_path = dir.file("rules.h5");
      options.revalidate = revalidate;
      const VerifySummary s = verify_rules(db, test::taso_axioms(), options);
      CHECK(db.rules[1].status == RuleStatus::refuted);
      CHECK(db.rules[0].status == RuleStatus::verified);
      CHECK(s.recheck.checked == (revalidate ? 2 : 1));
      CHECK(s.recheck.refuted == 1);
    }
  }
}

TEST_CASE("verify --revalidate decides again the rules derived from a rule it refutes", "[derive][family]") {
  static const MpiWorld world;  // one process: the whole pool
  test::TempDir dir;
  // A true rule whose stored derivation cites rule 0: once rule 0 is refuted
  // the derivation is no proof, and the rule is decided again (verified).
  RuleDatabase db = database({rule_2796(RuleStatus::verified), ewadd_swap_rule(0)});
  db.rules[1].status = RuleStatus::derived;
  db.rules[1].derivation = {{0, false, false, {}, {}}};
  for (Rule& r : db.rules) r.family = size_family_of(r);  // stated: not decided again for lack of one
  VerifyOptions options;
  options.save_path = dir.file("rules.h5");
  options.revalidate = true;
  const VerifySummary s = verify_rules(db, test::taso_axioms(), options);
  CHECK(db.rules[0].status == RuleStatus::refuted);
  CHECK(s.recheck.refuted == 1);
  CHECK(s.recheck.invalidated == 1);
  CHECK(db.rules[1].status == RuleStatus::verified);
  CHECK(s.checked == 1);
  const RuleDatabase saved = RuleDatabase::read(options.save_path);
  CHECK(saved.rules[0].status == RuleStatus::refuted);
  CHECK(saved.rules[0].note.find("shape family") != std::string::npos);
}

TEST_CASE("check-proofs works out each stated size family again", "[derive][family]") {
  test::TempDir dir;
  RuleDatabase db = database({rule_2400(RuleStatus::verified)});
  db.rules[0].family = size_family_of(db.rules[0]);
  const std::string path = dir.file("families.h5");
  db.write(path);
  CHECK(db_check_proofs_command({path}) == 0);
  // A family that admits more than the rule's own (here: any sizes) is named.
  db.rules[0].family = SizeFamily{};
  db.write(path);
  CHECK(db_check_proofs_command({path}) == 1);
  // One that keeps more sizes equal is still sound.
  SizeFamily stricter = size_family_of(db.rules[0]);
  REQUIRE(stricter.equal.size() >= 2);
  stricter.equal[0].insert(stricter.equal[0].end(), stricter.equal[1].begin(), stricter.equal[1].end());
  stricter.equal.erase(stricter.equal.begin() + 1);
  db.rules[0].family = stricter;
  db.write(path);
  CHECK(db_check_proofs_command({path}) == 0);
}
