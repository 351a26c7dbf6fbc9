// Derivations output by output (verify/derive.h derive_by_outputs,
// runtime/rewrite/output_rule.h): a two-output rule whose outputs share a
// subexpression, which the whole-rule search derives only in more steps than
// it is given, is derived one output at a time and replays; tampered per-output derivations (an output out
// of range, a step moved to another output, an output's steps missing, whole
// and per-output steps mixed) are named by the replay and check-proofs; a
// refuted base rule invalidates them; the '@output' text round-trips, old text
// still reads, and a malformed or out-of-range output fails the read.
#include <catch2/catch.hpp>

#include "runtime/cli/commands.h"
#include "runtime/core/error.h"
#include "runtime/core/graph_hash.h"
#include "runtime/mpi/mpi_world.h"
#include "runtime/rewrite/derivation.h"
#include "runtime/rewrite/output_rule.h"
#include "tests/output_rule_fixture.h"
#include "tests/part_rule_fixture.h"
#include "tests/temp_dir.h"
#include "tests/verify_fixture.h"
#include "verify/derive.h"
#include "verify/rule_validation.h"
#include "verify/verify.h"

using namespace superopt;
using namespace superopt::test;
using Catch::Matchers::Contains;

namespace {

// The two-part rule (part_rule_fixture.h) with a per-output derivation from
// the parts' rules: one step on output 0, two on output 1.
RuleDatabase two_part_by_outputs() {
  RuleDatabase db = parts_then_products(RuleStatus::verified);
  verify::ProvenRules proven;
  for (int k = 0; k < 3; ++k) proven.add(db.rules[k], k);
  std::optional<Derivation> d = verify::derive_by_outputs(db.rules[3], proven, {});
  REQUIRE(d);
  db.rules[3].status = RuleStatus::derived;
  db.rules[3].derivation = *d;
  return db;
}

int steps_on(const Derivation& d, int32_t output) {
  return int(std::count_if(d.begin(), d.end(), [&](const DerivationStep& s) { return s.output == output; }));
}

}  // namespace

TEST_CASE("an output's rule keeps its cone and every input, the same each time", "[outputs]") {
  const Rule rule = shared_conv_rule(RuleStatus::candidate);
  const Rule relu = output_rule(rule, 0), conv = output_rule(rule, 1);
  CHECK(relu.source.num_operators() == 2);
  CHECK(relu.target.num_operators() == 1);
  CHECK(relu.source.outputs().size() == 1);
  CHECK(structurally_equal(conv.source, conv.target));  // the same computation: no steps needed
  CHECK(structurally_equal(output_rule(rule, 0).source, relu.source));
  CHECK(output_rule(rule, 0).source.num_nodes() == relu.source.num_nodes());
}

TEST_CASE("outputs sharing a subexpression are derived output by output and replay", "[outputs]") {
  RuleDatabase db = base_then_shared(RuleStatus::verified);
  verify::ProvenRules proven;
  proven.add(db.rules[0], 0);
  // The whole rule takes three fusions; two steps do not reach, three do.
  CHECK_FALSE(verify::find_derivation(db.rules[1], proven.index, {2}));
  CHECK(verify::find_derivation(db.rules[1], proven.index, {3}));
  CHECK_FALSE(verify::derive_by_parts(db.rules[1], proven, {}));

  const verify::DeriveSummary s = verify::derive_rules(db, {});  // 2 steps
  REQUIRE(db.rules[1].status == RuleStatus::derived);
  CHECK(db.rules[1].note == verify::kPerOutputNote);
  CHECK(s.by_outputs == 1);
  const Derivation& d = db.rules[1].derivation;
  CHECK(steps_on(d, 0) == 2);  // the shared fusion is made again on each output
  CHECK(steps_on(d, 1) == 2);
  CHECK(d.size() == 4);
  CHECK(std::all_of(d.begin(), d.end(), [](const DerivationStep& step) { return step.rule == 0; }));
  CHECK_FALSE(derivation_error(db.rules, 1));

  TempDir dir;
  const std::string path = dir.file("rules.h5");
  db.write(path);
  const RuleDatabase back = RuleDatabase::read(path);
  CHECK(back.rules[1].derivation == db.rules[1].derivation);
  CHECK(db_check_proofs_command({path}, verify::family_difference) == 0);

  SECTION("a base rule made refuted invalidates it") {
    db.rules[0].status = RuleStatus::refuted;
    CHECK(invalidate_broken_derivations(db.rules) == 1);
    CHECK(db.rules[1].status == RuleStatus::candidate);
    CHECK(db.rules[1].derivation.empty());
  }
}

TEST_CASE("verify counts what it derives output by output", "[outputs]") {
  static const MpiWorld world;  // one process: the whole pool
  TempDir dir;
  RuleDatabase db = base_then_shared(RuleStatus::candidate);
  VerifyOptions options;
  options.save_path = dir.file("rules.h5");
  options.wave_rules = 1;  // the base rule is proven before the shared rule's wave
  const VerifySummary s = verify_rules(db, taso_axioms(), options);
  REQUIRE(db.rules[1].status == RuleStatus::derived);
  CHECK(s.derived_by_outputs == 1);
  CHECK_FALSE(derivation_error(db.rules, 1));
}

TEST_CASE("tampered per-output derivations are named by the replay", "[outputs]") {
  RuleDatabase db = two_part_by_outputs();
  Derivation& d = db.rules[3].derivation;
  REQUIRE(steps_on(d, 0) == 1);
  REQUIRE(steps_on(d, 1) == 2);
  REQUIRE_FALSE(derivation_error(db.rules, 3));
  const auto first_on = [&](int32_t output) {
    return size_t(
        std::find_if(d.begin(), d.end(), [&](const DerivationStep& s) { return s.output == output; }) -
        d.begin());
  };

  SECTION("an output the rule does not have") {
    d[first_on(1)].output = 2;
    CHECK_THAT(derivation_error(db.rules, 3).value(),
               Contains("step " + std::to_string(first_on(2) + 1) + ": output 2 does not exist"));
  }
  SECTION("a step moved to another output") {
    d[first_on(1)].output = 0;
    CHECK_THAT(derivation_error(db.rules, 3).value(), Contains("output 0, step"));
  }
  SECTION("a step of output 0 moved to output 1") {
    d[first_on(0)].output = 1;
    CHECK_THAT(derivation_error(db.rules, 3).value(),
               Contains("output 0, its sides differ and no step rewrites them"));
  }
  SECTION("an output's steps missing") {
    d.erase(std::remove_if(d.begin(), d.end(), [](const DerivationStep& s) { return s.output == 1; }),
            d.end());
    CHECK_THAT(derivation_error(db.rules, 3).value(), Contains("output 1, its sides differ"));
  }
  SECTION("whole-rule and per-output steps mixed") {
    d[first_on(1)].output = -1;
    CHECK_THAT(derivation_error(db.rules, 3).value(), Contains("a derivation is one or the other"));
  }
  SECTION("check-proofs exits 1 on it") {
    d[first_on(1)].output = 0;
    TempDir dir;
    const std::string path = dir.file("rules.h5");
    db.write(path);
    CHECK(db_check_proofs_command({path}) == 1);
  }
}

TEST_CASE("per-output derivation text round-trips, and old text still reads", "[outputs]") {
  const std::string old_text = "S 12> 4,-1,5/2,6;T 30< 2,3/0";
  const Derivation old = derivation_from_text(old_text);
  REQUIRE(old.size() == 2);
  CHECK(old[0].output == -1);
  CHECK(old[1].output == -1);
  CHECK(derivation_text(old) == old_text);

  const std::string new_text = "S 12> 4,-1/2@0;T 30< 2,3/0@1;T 7> 5@1";
  const Derivation d = derivation_from_text(new_text);
  REQUIRE(d.size() == 3);
  CHECK(d[0].output == 0);
  CHECK(d[0].variables == std::vector<int32_t>{2});
  CHECK(d[1].output == 1);
  CHECK(d[2].site == std::vector<int32_t>{5});
  CHECK(derivation_text(d) == new_text);
  CHECK(derivation_from_text(derivation_text(two_part_by_outputs().rules[3].derivation)) ==
        two_part_by_outputs().rules[3].derivation);

  for (const char* bad : {"S 1> 2@x", "S 1> 2@", "S 1> 2@-1", "S 1> 2@1x", "S 1> 2@99999999999"})
    CHECK_THROWS_WITH(derivation_from_text(bad), Contains("output"));
}

TEST_CASE("a stored step on an output the rule lacks fails the read, naming the rule", "[outputs]") {
  RuleDatabase db = base_then_shared(RuleStatus::verified);
  verify::derive_rules(db, {});
  REQUIRE(db.rules[1].status == RuleStatus::derived);
  db.rules[1].derivation[0].output = 2;
  TempDir dir;
  const std::string path = dir.file("rules.h5");
  db.write(path);
  CHECK_THROWS_WITH(RuleDatabase::read(path),
                    Contains("rule 1: its derivation has a step on output 2, the rule has 2"));
}
