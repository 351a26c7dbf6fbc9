// MPI test (run under mpirun with 1, 2 and 3 ranks): derivations part by part
// do not depend on the rank count. verify decides the parts' rules, then
// derives the dense two-part rule part by part and not the grouped one; derive
// over the ranks gives the statuses and derivations one process alone gives,
// part by part and output by output (derive_by_outputs).
#include <catch2/catch.hpp>

#include "tests/mpi_catch_session.h"

#include "runtime/mpi/mpi_world.h"
#include "runtime/rewrite/derivation.h"
#include "tests/output_rule_fixture.h"
#include "tests/part_rule_fixture.h"
#include "tests/temp_dir.h"
#include "tests/verify_fixture.h"
#include "verify/derive.h"
#include "verify/verify.h"

using namespace superopt;
using namespace superopt::test;

namespace {

MpiWorld* world = nullptr;

// Every rule's status and derivation, one line each.
std::string statuses(const RuleDatabase& db) {
  std::string s;
  for (const Rule& r : db.rules)
    s += std::to_string(int(r.status)) + " " + derivation_text(r.derivation) + "\n";
  return s;
}

}  // namespace

TEST_CASE("verify derives part by part the same on every rank count", "[parts][mpi]") {
  TempDir dir;
  RuleDatabase db = parts_then_products(RuleStatus::candidate);
  VerifyOptions options;
  options.save_path = dir.file("rules.h5");
  options.wave_rules = 1;
  const VerifySummary s = verify_rules(db, taso_axioms(), options);
  REQUIRE(db.rules[3].status == RuleStatus::derived);  // every rank has the shared statuses
  CHECK_FALSE(derivation_error(db.rules, 3));
  CHECK(db.rules[4].status != RuleStatus::derived);  // not through the dense rule
  if (world->rank() == 0) CHECK(s.derived_by_parts == 1);
  CHECK(world->broadcast(statuses(db)) == statuses(db));
}

namespace {

// derive over the ranks gives the statuses and derivations one process alone
// gives; rule `derived` derives, counted once by `count`.
void derive_alike(const RuleDatabase& db, int derived, int64_t verify::DeriveSummary::*count) {
  RuleDatabase alone = db, pooled = db;
  const verify::DeriveSummary one = verify::derive_rules(alone, {});
  const verify::DeriveSummary ranks = verify::derive_rules(pooled, {}, world);
  CHECK(statuses(pooled) == statuses(alone));
  CHECK(alone.rules[derived].status == RuleStatus::derived);
  CHECK(one.*count == 1);
  if (world->rank() == 0) CHECK(ranks.*count == 1);
}

}  // namespace

TEST_CASE("derive part by part over the ranks gives what one process gives", "[parts][mpi]") {
  derive_alike(parts_then_products(RuleStatus::verified), 3, &verify::DeriveSummary::by_parts);
}

TEST_CASE("derive output by output over the ranks gives what one process gives", "[outputs][mpi]") {
  derive_alike(base_then_shared(RuleStatus::verified), 1, &verify::DeriveSummary::by_outputs);
}

int main(int argc, char** argv) {
  MpiWorld mpi;
  world = &mpi;
  return superopt::test::run_catch_session_on_all_ranks(mpi, argc, argv);
}
