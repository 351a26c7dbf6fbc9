// The optimizer survives a bad rule (search/step_check.h, optimize()): a wrong
// rule marked verified is found by re-checking the applications one by one,
// named as suspect and dropped, and the search runs again; when no single
// application explains the failure, or no round is left, the input comes back.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "runtime/core/graph_hash.h"
#include "search/numerical_check.h"
#include "search/search.h"
#include "tests/bad_rule_fixture.h"
#include "tests/graph_count.h"
#include "tests/search_fixture.h"

using namespace superopt;
using namespace superopt::test;

namespace {

// Two gates reading one input: relu(x w1) and tanh(x w2). Merging the matmuls
// is right; dropping the relu or the tanh is not.
Graph gates() {
  Graph g;
  NodeId x = g.add_input("x", {8, 8});
  NodeId w1 = g.add_weight("w1", {8, 8});
  NodeId w2 = g.add_weight("w2", {8, 8});
  g.add_output({g.add(OpType::relu, {{g.add(OpType::matmul, {{x}, {w1}})}})});
  g.add_output({g.add(OpType::tanh, {{g.add(OpType::matmul, {{x}, {w2}})}})});
  return g;
}

bool applied(const OptimizeResult& r, const std::string& ops) {
  for (const std::string& label : r.rule_sequence)
    if (label.find(ops) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("a wrong rule marked verified is named as suspect, dropped, and the search runs again") {
  const int split_threshold = GENERATE(0, 2);
  CAPTURE(split_threshold);
  Graph g = gates();
  RuleDatabase db = bad_rule_database();  // rule 1: relu(x) = x
  LaunchCost cost;
  OptimizeResult r = optimize(g, db.rules, cost, options(1.05, split_threshold));
  CHECK(r.check.passed);
  REQUIRE(r.suspect_rules.size() == 1);
  CHECK(r.suspect_rules[0].id == 1);
  CHECK(r.suspect_rules[0].label.find("relu") != std::string::npos);
  CHECK(r.suspect_rules[0].max_relative_error > 1e-3);
  CHECK(r.rounds == 2);
  CHECK_FALSE(applied(r, "relu"));
  CHECK(count_ops(r.graph, OpType::relu) == 1);
  CHECK(search::numerical_check(g, r.graph, 7, 1'000'000'000).passed);  // with other values too
  if (split_threshold == 0) {  // whole, the right merge still happens
    CHECK(applied(r, "matmul,matmul -> concat,matmul,split"));
    CHECK(count_ops(r.graph, OpType::matmul) == 1);
    CHECK(r.cost_after_ms < r.cost_before_ms);
  }
}

TEST_CASE("two wrong rules take two more rounds, and with fewer the input comes back") {
  Graph g = gates();
  std::vector<Rule> rules = {drop_unary_rule(OpType::tanh), drop_unary_rule(OpType::relu)};
  LaunchCost cost;
  SearchOptions o = options(1.05);
  OptimizeResult r = optimize(g, rules, cost, o);
  CHECK(r.check.passed);
  CHECK(r.suspect_rules.size() == 2);
  CHECK(r.rounds == 3);
  CHECK(structurally_equal(r.graph, g));

  o.max_suspects = 1;
  OptimizeResult short_of_rounds = optimize(g, rules, cost, o);
  CHECK_FALSE(short_of_rounds.check.passed);
  CHECK(short_of_rounds.suspect_rules.size() == 1);
  CHECK(structurally_equal(short_of_rounds.graph, g));
}

TEST_CASE("a failure that no single application explains returns the input graph") {
  // x * a * b with scalars a and b near 1: dropping one multiplication stays within the
  // check's tolerance (6e-7), dropping both does not (1.2e-6).
  Graph g;
  NodeId x = g.add_input("x", {2, 4});
  NodeId a = g.add_weight("a", {}, {1.0000006f});
  NodeId b = g.add_weight("b", {}, {1.0000006f});
  g.add_output({g.add(OpType::smul, {{g.add(OpType::smul, {{x}, {a}})}, {b}})});
  LaunchCost cost;
  OptimizeResult r = optimize(g, {drop_smul_rule()}, cost, options(1.05));
  CHECK(r.rule_sequence.size() == 2);
  CHECK_FALSE(r.check.passed);
  CHECK(r.suspect_rules.empty());
  CHECK(r.rounds == 1);
  CHECK(structurally_equal(r.graph, g));
}
