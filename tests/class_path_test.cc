// Derivations along a fingerprint class (verify/class_paths.h): with A~B and
// B~C proven, A~C is derived from the path, replays with check-proofs and is
// counted as such by derive and verify; a path whose step the matcher refuses
// (a grouped convolution where the proven rule is dense) is not used; only
// the rules before the prefix cut are walked.
#include <catch2/catch.hpp>

#include "runtime/cli/commands.h"
#include "runtime/mpi/mpi_world.h"
#include "runtime/rewrite/derivation.h"
#include "tests/class_path_fixture.h"
#include "tests/temp_dir.h"
#include "tests/verify_fixture.h"
#include "verify/derive.h"
#include "verify/rule_validation.h"
#include "verify/verify.h"

using namespace superopt;
using namespace superopt::test;

TEST_CASE("A~C follows from A~B and B~C along their class, and replays", "[class_path]") {
  RuleDatabase db = three_members(RuleStatus::candidate);
  const verify::DeriveSummary s = verify::derive_rules(db, {});
  REQUIRE(db.rules[2].status == RuleStatus::derived);
  CHECK(s.derived == 1);
  CHECK(s.by_class_path == 1);
  CHECK(db.rules[2].note == verify::kClassPathNote);
  const Derivation& d = db.rules[2].derivation;
  REQUIRE(d.size() == 2);
  CHECK(d[0].rule == 0);  // A -> B, then B -> C: the whole graph each time
  CHECK(d[1].rule == 1);
  CHECK_FALSE(d[0].on_target);
  CHECK_FALSE(d[1].on_target);
  CHECK_FALSE(derivation_error(db.rules, 2));
  test::TempDir dir;
  const std::string path = dir.file("rules.h5");
  db.write(path);
  CHECK(db_check_proofs_command({path}, verify::family_difference) == 0);

  SECTION("off, the breadth-first search finds it instead") {
    RuleDatabase fresh = three_members(RuleStatus::candidate);
    const verify::DeriveSummary off = verify::derive_rules(fresh, {.max_class_path = 0});
    CHECK(fresh.rules[2].status == RuleStatus::derived);
    CHECK(off.by_class_path == 0);
    CHECK(fresh.rules[2].note.empty());
  }
  SECTION("one rewrite along the class is not enough") {
    RuleDatabase fresh = three_members(RuleStatus::candidate);
    const verify::DeriveSummary one = verify::derive_rules(fresh, {.max_class_path = 1});
    CHECK(one.by_class_path == 0);
  }
}

TEST_CASE("the class path uses only the rules before the prefix cut", "[class_path]") {
  RuleDatabase db = three_members(RuleStatus::candidate);
  verify::ProvenRules proven;
  proven.add(db.rules[0], 0);
  const int after_first = int(proven.index.rules.size());
  proven.add(db.rules[1], 1);
  CHECK(proven.classes.find(db.rules[2], proven.index, 8, 256));
  CHECK_FALSE(proven.classes.find(db.rules[2], proven.index, 8, 256, after_first));
  Rule elsewhere = db.rules[2];
  elsewhere.fingerprint = kClass + 1;  // another class: none of its rules proven
  CHECK_FALSE(proven.classes.find(elsewhere, proven.index, 8, 256));
}

TEST_CASE("verify counts what its class derives", "[class_path]") {
  static const MpiWorld world;  // one process: the whole pool
  test::TempDir dir;
  RuleDatabase db = three_members(RuleStatus::candidate);
  VerifyOptions options;
  options.save_path = dir.file("rules.h5");
  options.wave_rules = 2;  // A~B and B~C are proven before A~C's wave
  const VerifySummary s = verify_rules(db, test::taso_axioms(), options);
  REQUIRE(db.rules[2].status == RuleStatus::derived);
  CHECK(s.derived_by_class_path == 1);
  CHECK_FALSE(derivation_error(db.rules, 2));
}

TEST_CASE("a class path whose step the matcher refuses is not used", "[class_path]") {
  // Dense and grouped convolutions share the class's key (a shape is not
  // part of it), but the matcher pins the group count: the dense rule does
  // not rewrite the grouped graph.
  verify::ProvenRules proven;
  proven.add(conv_relu_rule(4, RuleStatus::verified, kClass), 0);
  CHECK(proven.classes.find(conv_relu_rule(4, RuleStatus::candidate, kClass), proven.index, 8, 256));
  CHECK_FALSE(proven.classes.find(conv_relu_rule(2, RuleStatus::candidate, kClass), proven.index, 8, 256));
  RuleDatabase db = database(
      {conv_relu_rule(4, RuleStatus::verified, kClass), conv_relu_rule(2, RuleStatus::candidate, kClass)});
  const verify::DeriveSummary s = verify::derive_rules(db, {});
  CHECK(db.rules[1].status == RuleStatus::candidate);
  CHECK(s.by_class_path == 0);
}
