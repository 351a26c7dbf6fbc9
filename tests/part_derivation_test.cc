// Derivations part by part (verify/rule_parts.h, derive_by_parts): a rule
// whose outputs are computed apart is split into the rules of its parts; with
// the parts' rules proven it is derived in three steps, beyond the search's
// two, replays with check-proofs and is counted as such by derive and verify;
// a part whose step the matcher refuses (a dense rule on a grouped
// convolution) leaves the rule underived.
#include <catch2/catch.hpp>

#include "runtime/cli/commands.h"
#include "runtime/core/graph_hash.h"
#include "runtime/mpi/mpi_world.h"
#include "runtime/rewrite/derivation.h"
#include "tests/part_rule_fixture.h"
#include "tests/temp_dir.h"
#include "tests/verify_fixture.h"
#include "verify/derive.h"
#include "verify/rule_parts.h"
#include "verify/rule_validation.h"
#include "verify/verify.h"

using namespace superopt;
using namespace superopt::test;

namespace {

// Whether g computes what `expected` does, output by output, with as many
// operators (a part keeps every input of the whole rule; unused ones do not count).
bool computes_the_same(const Graph& g, const Graph& expected) {
  if (g.num_operators() != expected.num_operators() || g.outputs().size() != expected.outputs().size())
    return false;
  const std::vector<uint64_t> mine = node_hashes(g), theirs = node_hashes(expected);
  for (size_t k = 0; k < g.outputs().size(); ++k)
    if (g.outputs()[k].port != expected.outputs()[k].port ||
        mine[g.outputs()[k].node] != theirs[expected.outputs()[k].node])
      return false;
  return true;
}

// ((p q) s) t -> p ((q s) t): the two-part rule's second part on its own.
Rule a_to_c_over_pqst() {
  RuleBuilder r;
  auto [p, pb] = r.input("p", Shape{2, 3});
  auto [q, qb] = r.input("q", Shape{3, 4});
  auto [s, sb] = r.input("s", Shape{4, 5});
  auto [t, tb] = r.input("t", Shape{5, 2});
  r.source.add_output(product(r.source, Product::a, p, q, s, t));
  r.target.add_output(product(r.target, Product::c, pb, qb, sb, tb));
  return r.rule();
}

}  // namespace

TEST_CASE("a two-part rule splits into its parts' rules", "[parts]") {
  const std::vector<Rule> parts = verify::rule_parts(two_part_rule(4, RuleStatus::candidate));
  REQUIRE(parts.size() == 2);
  const Rule conv_relu = conv_relu_rule(4, RuleStatus::candidate);
  CHECK(computes_the_same(parts[0].source, conv_relu.source));
  CHECK(computes_the_same(parts[0].target, conv_relu.target));
  const Rule a_to_c = a_to_c_over_pqst();
  CHECK(computes_the_same(parts[1].source, a_to_c.source));
  CHECK(computes_the_same(parts[1].target, a_to_c.target));
  CHECK_FALSE(computes_the_same(parts[1].source, a_to_c.target));
  CHECK(verify::rule_parts(a_to_c).empty());  // one part: not a product
}

TEST_CASE("outputs grouped differently on the two sides are not a product", "[parts]") {
  // relu(x) and relu(y) apart on the source, split(relu(concat(x, y))) on
  // the target: one part computes both.
  RuleBuilder r;
  auto [x, xb] = r.input("x", Shape{2, 3});
  auto [y, yb] = r.input("y", Shape{2, 3});
  r.source.add_output(op(r.source, OpType::relu, {x}));
  r.source.add_output(op(r.source, OpType::relu, {y}));
  OpParams rows;
  rows.axis = 0;
  const TensorRef joined = op(r.target, OpType::relu, {op(r.target, OpType::concat, {xb, yb}, rows)});
  const NodeId halves = r.target.add(OpType::split, {joined}, rows);
  r.target.add_output({halves, 0});
  r.target.add_output({halves, 1});
  CHECK(verify::rule_parts(r.rule()).empty());
}

TEST_CASE("a two-part rule is derived part by part and replays", "[parts]") {
  RuleDatabase db = parts_then_products(RuleStatus::verified);
  const verify::DeriveSummary s = verify::derive_rules(db, {});
  REQUIRE(db.rules[3].status == RuleStatus::derived);
  CHECK(db.rules[3].note == verify::kPartsNote);
  CHECK(db.rules[3].derivation.size() == 3);  // conv-relu, A~B, B~C
  CHECK(s.by_parts == 1);
  CHECK_FALSE(derivation_error(db.rules, 3));
  test::TempDir dir;
  const std::string path = dir.file("rules.h5");
  db.write(path);
  CHECK(db_check_proofs_command({path}, verify::family_difference) == 0);

  SECTION("the breadth-first search alone does not reach it") {
    verify::ProvenRules proven;
    for (int k = 0; k < 3; ++k) proven.add(db.rules[k], k);
    CHECK_FALSE(verify::find_derivation(db.rules[3], proven.index, {}));
    CHECK(verify::derive_by_parts(db.rules[3], proven, {}));
  }
}

TEST_CASE("a part whose step the matcher refuses is not used", "[parts]") {
  // The grouped two-part rule: its convolution part matches no dense rule.
  RuleDatabase db = parts_then_products(RuleStatus::verified);
  const verify::DeriveSummary s = verify::derive_rules(db, {});
  CHECK(db.rules[4].status == RuleStatus::candidate);
  CHECK(s.by_parts == 1);  // the dense one only

  SECTION("with the grouped conv-relu rule proven instead, the grouped product derives") {
    RuleDatabase grouped = parts_then_products(RuleStatus::verified, 2);
    const verify::DeriveSummary g = verify::derive_rules(grouped, {});
    CHECK(grouped.rules[4].status == RuleStatus::derived);
    CHECK(grouped.rules[3].status == RuleStatus::candidate);
    CHECK(g.by_parts == 1);
  }
}

TEST_CASE("verify counts what it derives part by part", "[parts]") {
  static const MpiWorld world;  // one process: the whole pool
  test::TempDir dir;
  RuleDatabase db = parts_then_products(RuleStatus::candidate);
  VerifyOptions options;
  options.save_path = dir.file("rules.h5");
  options.wave_rules = 1;  // the parts' rules are proven before the products' waves
  const VerifySummary s = verify_rules(db, test::taso_axioms(), options);
  REQUIRE(db.rules[3].status == RuleStatus::derived);
  CHECK(db.rules[4].status != RuleStatus::derived);
  CHECK(s.derived_by_parts == 1);
  CHECK_FALSE(derivation_error(db.rules, 3));
}
