// MPI test (run under mpirun with 1 and with 2 ranks): derivations along a
// fingerprint class do not depend on the rank count. verify derives A~C from
// A~B and B~C along their class, and derive over the ranks gives the statuses
// and derivations that one process alone gives.
#include <catch2/catch.hpp>

#include "tests/mpi_catch_session.h"

#include "runtime/mpi/mpi_world.h"
#include "runtime/rewrite/derivation.h"
#include "tests/class_path_fixture.h"
#include "tests/temp_dir.h"
#include "tests/verify_fixture.h"
#include "verify/derive.h"
#include "verify/verify.h"

using namespace superopt;
using namespace superopt::test;

namespace {

MpiWorld* world = nullptr;

// A~B and B~C to decide first (one rule a wave), then A~C; and a grouped
// convolution that the dense rule's path must not reach.
RuleDatabase undecided() {
  RuleDatabase db = three_members(RuleStatus::candidate);
  db.rules[0].status = db.rules[1].status = RuleStatus::candidate;
  db.rules.push_back(conv_relu_rule(4, RuleStatus::candidate, kClass));
  db.rules.push_back(conv_relu_rule(2, RuleStatus::candidate, kClass));
  return db;
}

}  // namespace

TEST_CASE("verify derives along a class the same on every rank count", "[class_path][mpi]") {
  TempDir dir;
  RuleDatabase db = undecided();
  VerifyOptions options;
  options.save_path = dir.file("rules.h5");
  options.wave_rules = 1;
  const VerifySummary s = verify_rules(db, taso_axioms(), options);
  REQUIRE(db.rules[2].status == RuleStatus::derived);  // every rank has the shared statuses
  CHECK_FALSE(derivation_error(db.rules, 2));
  CHECK(db.rules[4].status != RuleStatus::derived);  // not along the dense rule
  if (world->rank() == 0) {
    CHECK(s.derived_by_class_path == 1);
    CHECK(db.rules[2].note == verify::kClassPathNote);
  }
  // Every rank ends with rank 0's statuses and derivations.
  std::string mine;
  for (const Rule& r : db.rules) mine += std::to_string(int(r.status)) + derivation_text(r.derivation) + "\n";
  CHECK(world->broadcast(mine) == mine);
}

TEST_CASE("derive over the ranks gives what one process gives", "[class_path][mpi]") {
  RuleDatabase alone = three_members(RuleStatus::candidate), pooled = alone;
  const verify::DeriveSummary one = verify::derive_rules(alone, {});
  const verify::DeriveSummary ranks = verify::derive_rules(pooled, {}, world);
  for (size_t k = 0; k < alone.rules.size(); ++k) {
    CHECK(pooled.rules[k].status == alone.rules[k].status);
    CHECK(pooled.rules[k].derivation == alone.rules[k].derivation);
  }
  CHECK(one.by_class_path == 1);
  if (world->rank() == 0) CHECK(ranks.by_class_path == 1);
}

int main(int argc, char** argv) {
  MpiWorld mpi;
  world = &mpi;
  return superopt::test::run_catch_session_on_all_ranks(mpi, argc, argv);
}
